import Documents

extension DocumentError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String {
    switch self {
    case .invalid(let field, let reason): "INVALID \(field) \(reason)"
    case .tooLarge(let n): "INVALID bytes larger than \(n) bytes"
    case .limit(let n): "LIMIT at most \(n) documents per account"
    case .noPermission: "NOPERM the document is not yours"
    case .notFound: "NOTFOUND no such document"
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    case .tryAgain(let why): "TRYAGAIN \(why)"
    }
  }
}
