import RateLimits

/// Why a card operation was refused; `message` is the reply's error line.
public enum CardError: Error, Sendable, Equatable {
  case invalid(CardFieldError)
  /// The plan's card limit is reached.
  case limit(Int, pro: Bool)
  /// The card is not the caller's.
  case noPermission
  /// The card is the caller's own, where only another's may be (a wallet).
  case ownCard
  /// No such card, or none the caller may see.
  case notFound
  /// The card is inactive (its owner's Pro ended): it cannot be shared or added.
  case inactive
  /// A search argument out of range.
  case badQuery(String)
  /// No place matches the card's address.
  case addressNotFound
  /// The geocoder failed (unreachable, refused, or the query was bad).
  case geocoding(String)
  case notPersisted(String)
  /// A limit per account or address (`LIMIT <what>, retry after N s`).
  case limited(LimitExceeded)

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
    case .limited(let limit): limit.message
    }
  }
}
