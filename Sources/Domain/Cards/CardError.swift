import Accounts
import Durability
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
  /// Nothing was written and the same command may be sent again: the store was unreachable,
  /// or another node wrote the same owner's cards at the same moment.
  case tryAgain(String)
  /// An import's row named an owner whose account could not be made.
  case ownerNotCreated(AccountError)
  /// A limit per account or address (`LIMIT <what>, retry after N s`).
  case limited(LimitExceeded)
}

extension CardError {
  /// A failed commit in the cards' terms; a race lost on the plan's limit is `plan`'s limit.
  init(storeFailure error: any Error, plan: CardPlan? = nil) {
    switch error {
    case let raced as CardRaced:
      if raced.overLimit, let plan {
        self = .limit(plan.cards, pro: plan.isPro)
      } else {
        self = .tryAgain("\(raced)")
      }
    case let failure as any StoreFailure where failure.nothingWritten:
      self = .tryAgain("write not persisted, nothing written: \(error)")
    default: self = .notPersisted("\(error)")
    }
  }
}
