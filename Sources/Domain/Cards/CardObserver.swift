import Durability

/// A module that holds other people's cards (wallets): told when a card changes or is deleted,
/// it updates its own state and returns the writes that go into the same transaction as the
/// card's own. Called outside the cards' lock, after the card's change is in memory.
public protocol CardObserver: Sendable {
  /// The card's fields, or whether it is primary, changed.
  func cardChanged(_ card: Card) -> [any DurableWrite]
  /// The card was deleted, by its owner or with its owner's account.
  func cardDeleted(_ card: Card) -> [any DurableWrite]
}
