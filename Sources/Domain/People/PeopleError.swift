import RateLimits

/// Why a people or exchange operation was refused; `message` is the reply's error line.
public enum PeopleError: Error, Sendable, Equatable {
  case invalid(field: String, reason: String)
  /// PEOPLE.NEARBY and EXCHANGE.REQUEST search from the caller's own live presence.
  case noPresence
  case noPrimaryCard
  /// Nobody by that id is findable near the caller.
  case notNearby
  case alreadyExchanged
  /// Too many searches in the last minute.
  case rateLimited(perMinute: Int)
  /// Another limit per account or address.
  case limited(LimitExceeded)
  case notPersisted(String)

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
    }
  }
}
