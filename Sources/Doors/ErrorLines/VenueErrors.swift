import Venues

extension VenueError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String {
    switch self {
    case .invalid(let field, let reason): "INVALID \(field): \(reason)"
    case .notFound(let what): "NOTFOUND \(what)"
    case .noPermission(let why): "NOPERM \(why)"
    case .notInRange(let metres): "NOTINRANGE \(Int(metres.rounded(.up)))"
    case .limit(let why): "LIMIT \(why)"
    case .geocoding(let why): "ERR geocoding failed: \(why)"
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    case .tryAgain(let why): "TRYAGAIN \(why)"
    }
  }
}
