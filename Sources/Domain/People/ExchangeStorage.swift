import Durability
import Foundation

/// What the exchanges need from a store: the pending requests and who has exchanged with whom,
/// read back at start; an account's exchanges, read when asked; and the writes that keep them,
/// made durable in the group commit with the rest of their command (`commit`). Presences live
/// in memory only. The embedded store's is `SQLiteDomainStorage.SQLiteExchanges`; a store many
/// nodes share hands out exchange ids in blocks (`exchangeIDs`) and carries each write's
/// `ExchangeChange` to every node (`People.apply(followed:)`).
public protocol ExchangeStorage: WriteCommitter {
  /// The requests waiting, who has exchanged with whom, and the id after the highest given.
  func load() throws -> (requests: [StoredExchangeRequest], pairs: [(Int64, Int64)], nextId: Int64)
  /// The account's exchanges, newest first, at most `limit`.
  func exchanges(
    of account: Int64, limit: Int,
    _ done: @escaping @Sendable (Result<[Exchange], any Error>) -> Void)
  func inserting(_ exchange: Exchange) -> any DurableWrite
  /// Makes the stored request (from, to) what `current` answers as the write applies (when it
  /// was made, or nil for none), so that racing writes for one pair leave the latest state
  /// whatever order they commit in. A `new` request, its command's only write, is refused
  /// (`ExchangeRaced`) when the pair has exchanged on another node meanwhile.
  func syncingRequest(
    from: Int64, to: Int64, new: Bool, current: @escaping @Sendable () -> Double?
  ) -> any DurableWrite
  /// The key the distances PEOPLE.NEARBY shows are moved under (`DistanceBlur`): kept in the
  /// store, so that every node and every restart moves a pair's distance alike (a key per
  /// process let a client average over nodes or restarts).
  func distanceKey() throws -> Data
  /// The account's requests, both ways, and its exchanges, when the account goes.
  func deletingAll(of account: Int64) -> any DurableWrite
  /// Where new exchanges' ids come from when nodes share the store (nil: one after the
  /// highest, counted in memory).
  var exchangeIDs: (any IDBlocks)? { get }
}

extension ExchangeStorage {
  public var exchangeIDs: (any IDBlocks)? { nil }
}

/// A request waiting for the other side: who made it, to whom, when (seconds since 1970).
public struct StoredExchangeRequest: Sendable, Equatable {
  public let from: Int64
  public let to: Int64
  public let requestedAt: Double

  public init(from: Int64, to: Int64, requestedAt: Double) {
    self.from = from
    self.to = to
    self.requestedAt = requestedAt
  }
}

/// An exchange refused by a store many nodes share: the pair exchanged on another node at the
/// same moment. Nothing of this command was written; the other node's exchange stands.
public struct ExchangeRaced: Error, CustomStringConvertible {
  public init() {}

  public var description: String { "the pair exchanged on another node at the same moment" }
}
