import Foundation

/// Where the hooks and their undelivered events are kept (SQLiteHookOutbox: `hooks.sqlite`).
/// An event is in it, durably, before the write that made it is acknowledged, and leaves it
/// once its hook's receiver answered 2xx; one that ran out of tries stays as a dead letter
/// until replayed.
public protocol HookOutbox: Sendable {
  func hooks() throws -> [Hook]
  /// Each hook's events waiting (not dead) and dead.
  func counts() throws -> [String: (pending: Int, dead: Int)]
  /// Up to `limit` of `hook`'s waiting events after `id`, oldest first.
  func pending(_ hook: String, after id: Int64, limit: Int) throws -> [OutboxEvent]
  /// Up to `limit` of `hook`'s dead letters, oldest first.
  func dead(_ hook: String, limit: Int) throws -> [OutboxEvent]
  /// Adds the events; `done` gets their ids once they are durable.
  func append(
    _ events: [(hook: String, payload: Data)], created: Int64,
    done: @escaping HookOutboxDone<[Int64]>)
  /// Records what became of a try; `done` runs once it is written (or could not be). Not
  /// waited for by a reply: a delivery settled but not yet written when the process dies is
  /// delivered again, under the same id.
  func settle(_ settlement: Settlement, done: @escaping @Sendable () -> Void)
  func save(_ hook: Hook, done: @escaping HookOutboxDone<Void>)
  /// Removes the hook and every event of it.
  func delete(_ hook: String, done: @escaping HookOutboxDone<Void>)
  /// Puts dead letters back to wait (`ids` nil: all of the hook's), their tries reset; `done`
  /// gets how many. Past `HookOutboxLimits.deadLetters` a hook's oldest dead letters go.
  func replay(_ hook: String, ids: [Int64]?, now: Int64, done: @escaping HookOutboxDone<Int>)
}

public typealias HookOutboxDone<T> = @Sendable (Result<T, any Error>) -> Void

public enum HookOutboxLimits {
  /// Dead letters kept per hook; past it the oldest go.
  public static let deadLetters = 10_000
}

/// An event for a hook, as kept.
public struct OutboxEvent: Sendable, Equatable {
  public let id: Int64
  public let hook: String
  public let payload: Data
  /// When it was made, in ms since 1970.
  public let created: Int64
  public var attempts: Int
  /// Not before, in ms since 1970.
  public var due: Int64
  public var error: String?

  public init(
    id: Int64, hook: String, payload: Data, created: Int64, attempts: Int, due: Int64,
    error: String? = nil
  ) {
    self.id = id
    self.hook = hook
    self.payload = payload
    self.created = created
    self.attempts = attempts
    self.due = due
    self.error = error
  }
}

/// What became of a try.
public enum Settlement: Sendable {
  case delivered(Int64)
  case retry(Int64, attempts: Int, due: Int64, error: String)
  case dead(Int64, hook: String, attempts: Int, error: String)
}
