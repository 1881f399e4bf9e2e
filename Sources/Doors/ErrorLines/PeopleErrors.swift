import People
import RateLimits

extension PeopleError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String {
    switch self {
    case .invalid(let field, let reason): "INVALID \(field) \(reason)"
    case .noPresence: "ERR no live presence: PRESENCE.SET first"
    case .noPrimaryCard: "INVALID card you need a primary card to exchange"
    case .notNearby: "NOTFOUND nobody findable by that id near you"
    case .alreadyExchanged: "ERR already exchanged with this account"
    case .rateLimited(let n): "LIMIT at most \(n) PEOPLE.NEARBY and EXCHANGE.REQUEST a minute"
    case .limited(let limit): limit.message
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    case .tryAgain(let why): "TRYAGAIN \(why)"
    case .unavailable(let why): "ERR the store could not be read: \(why)"
    }
  }
}
