import Accounts
import RateLimits

/// Why a card operation was refused (the doors turn it into their error replies, `ErrorLines`).
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
  /// An import's row named an owner whose account could not be made.
  case ownerNotCreated(AccountError)
  /// A limit per account or address (`LIMIT <what>, retry after N s`).
  case limited(LimitExceeded)
}
