import Durability

/// A module that holds what accounts own (cards, wallets): told of the changes to an account
/// that change what it may show, it updates its own state and returns the writes that go
/// into the same transaction as the account's own.
public protocol AccountObserver: Sendable {
  /// The account is being deleted: forget everything it owns.
  func accountDeleted(_ id: Int64) -> [any DurableWrite]
  /// The account became Pro, or stopped being Pro.
  func proChanged(_ account: Account) -> [any DurableWrite]
}
