/// A malformed request. The reply is `-<message>\r\n` and the connection must then be closed,
/// because the stream can no longer be framed; the parser refuses further input after one.
public struct RESPProtocolError: Error, Equatable, Sendable {
  /// Redis's exact text, such as `ERR Protocol error: invalid bulk length`.
  public let message: String

  init(_ detail: String) {
    message = "ERR Protocol error: " + detail
  }

  static let tooBigInline = RESPProtocolError("too big inline request")
  static let unbalancedQuotes = RESPProtocolError("unbalanced quotes in request")
  static let invalidMultibulkLength = RESPProtocolError("invalid multibulk length")
  static let invalidBulkLength = RESPProtocolError("invalid bulk length")
  static let tooBigMultibulkCount = RESPProtocolError("too big mbulk count string")
  static let tooBigBulkCount = RESPProtocolError("too big bulk count string")

  /// Redis formats the byte with `%c`, and its error replies turn CR and LF into spaces.
  static func expectedDollar(got byte: UInt8) -> RESPProtocolError {
    let shown = byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") ? UInt8(ascii: " ") : byte
    return RESPProtocolError("expected '$', got '\(Character(Unicode.Scalar(shown)))'")
  }
}
