import Pins
import RateLimits

extension PinError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
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
    case .tryAgain(let why): "TRYAGAIN \(why)"
    }
  }
}
