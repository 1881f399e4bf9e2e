import Accounts

extension AccountError {
  /// The error's first word on the wire (`INVALID email`, `WRONGPASS`, ...); `reason` follows.
  public var code: String {
    switch self {
    case .invalid(let field, _): "INVALID \(field)"
    case .wrongCredentials: "WRONGPASS"
    case .invalidToken: "INVALID token"
    case .notFound: "NOTFOUND"
    case .busy: "BUSY"
    case .limited: "LIMIT"
    case .notPersisted, .notConfigured, .idTokenRefused, .idTokenKeysUnavailable: "ERR"
    }
  }

  /// The error line both doors answer: `INVALID email: not an email address`.
  public var message: String {
    switch self {
    case .invalid, .invalidToken: "\(code): \(reason)"
    default: "\(code) \(reason)"
    }
  }
}
