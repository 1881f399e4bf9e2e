import RateLimits

/// Why a pin operation was refused; `message` is the reply's error line.
public enum PinError: Error, Sendable, Equatable {
  /// A field or argument out of its rules: which, and why.
  case invalid(String, String)
  /// The pin is not the caller's.
  case noPermission
  /// The pin is the caller's: its owner does not vote on it.
  case ownVote
  /// No such pin.
  case notFound
  /// The pin has no photo (yet).
  case noPhoto
  /// Outside the pin's circle: metres to its edge, rounded up.
  case notInRange(Int)
  /// The opener could not have got to the point since its last open.
  case implausibleMove(metres: Double, seconds: Double)
  /// A limit per account was reached.
  case limited(LimitExceeded)
  /// A search argument out of range.
  case badQuery(String)
  case notPersisted(String)

  public var message: String {
    switch self {
    case .invalid(let field, let why): "INVALID \(field) \(why)"
    case .noPermission: "NOPERM the pin is not yours"
    case .ownVote: "NOPERM you cannot vote on your own pin"
    case .notFound: "NOTFOUND no such pin"
    case .noPhoto: "NOTFOUND the pin has no photo"
    case .notInRange(let metres): "NOTINRANGE \(metres)"
    case .implausibleMove(let metres, let seconds):
      "INVALID location \(Int((metres / 1000).rounded())) km from your last PIN.OPEN \(Int(seconds)) s ago"
    case .limited(let limit): limit.message
    case .badQuery(let why): "ERR \(why)"
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    }
  }
}
