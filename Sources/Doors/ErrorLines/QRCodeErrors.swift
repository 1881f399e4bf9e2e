import QRCodes

extension QRCodeError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String { "ERR " + reason }
}
