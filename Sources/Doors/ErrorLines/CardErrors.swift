import Cards
import RateLimits

extension CardError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String {
    switch self {
    case .invalid(let error): error.message
    case .limit(let n, let pro):
      pro
        ? "LIMIT Pro accounts have at most \(n) cards"
        : "LIMIT free accounts have \(n) card\(n == 1 ? "" : "s"); Pro accounts have more"
    case .noPermission: "NOPERM the card is not yours"
    case .ownCard: "INVALID card: your own card"
    case .notFound: "NOTFOUND no such card"
    case .inactive: "INACTIVE the card is no longer active"
    case .badQuery(let why): "ERR \(why)"
    case .addressNotFound: "NOTFOUND no place matches the card's address"
    case .geocoding(let why): "ERR geocoding failed: \(why)"
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    case .tryAgain(let why): "TRYAGAIN \(why)"
    case .ownerNotCreated(let error):
      "ERR write not persisted: cannot create the owner's account: \(error.code)"
    case .limited(let limit): limit.message
    }
  }
}

extension CardFieldError {
  /// The error line both doors answer: `INVALID email: not an email address`.
  public var message: String { "INVALID \(field): \(reason)" }
}
