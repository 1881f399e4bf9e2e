import Durability
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The store many nodes share: PostgreSQL. Each node writes through its own group commit (every
/// command's writes durable in one transaction with the others queued meanwhile), and every
/// commit that changes something appends one row to the change feed, which every node follows
/// (`follow`) to apply what the others wrote.
public final class PostgresStore: WriteCommitter, Sendable {
  /// This process's name in the feed: its own rows are recognised by it.
  public let node: String
  public let connector: PostgresConnector
  let logger: Logger
  private let writer: GroupWriter
  private let pruner: Task<Void, Never>
  private let relay = Mutex<PostgresPubSub?>(nil)

  /// Connects, and applies the feed's migrations and then `migrations`; prunes the feed as
  /// `retention` says, every `retention.interval`. The store's tasks run on `executor` (nil:
  /// Swift's global pool), so that nothing else on the pool holds up a commit. A COMMIT whose
  /// connection failed waits up to `outcomeWait` for a primary to say whether it went through
  /// before its commands fail as `outcomeUnknown` (a failover takes seconds).
  public init(
    location: PostgresLocation, migrations: [PostgresMigration],
    retention: FeedRetention = FeedRetention(), executor: (any TaskExecutor)? = nil,
    outcomeWait: Duration = .seconds(15), logger: Logger
  ) async throws {
    node = UUID().uuidString.lowercased()
    connector = PostgresConnector(location: location, executor: executor, logger: logger)
    self.logger = logger
    let connection = try await connector.primary()
    do {
      try await PostgresMigration.migrate(
        ChangeFeed.migrations + FeedRetention.migrations + migrations, on: connection,
        logger: logger)
    } catch {
      try? await connection.close()
      throw error
    }
    writer = GroupWriter(
      node: node, connector: connector, connection: connection, outcomeWait: outcomeWait,
      logger: logger)
    pruner = Task(executorPreference: executor) { [connector] in
      while !Task.isCancelled {
        try? await Task.sleep(for: retention.interval)
        guard !Task.isCancelled else { return }
        await Self.prune(retention, connector: connector, logger: logger)
      }
    }
  }

  /// One round of `retention`, on a connection of its own; a failure waits for the next.
  static func prune(
    _ retention: FeedRetention, connector: PostgresConnector, logger: Logger
  ) async {
    do {
      let connection = try await connector.primary()
      defer { connection.discard() }
      let deleted = try await QueryDeadline.within(
        .seconds(60), closing: connection, on: connector.executor
      ) {
        try await retention.prune(on: connection, logger: logger)
      }
      if deleted > 0 { logger.debug("change feed: pruned", metadata: ["rows": "\(deleted)"]) }
    } catch {
      logger.warning(
        "change feed: could not prune", metadata: ["error": "\(String(reflecting: error))"])
    }
  }

  /// Prunes the feed now, as the store does every `retention.interval`.
  public func prune(_ retention: FeedRetention) async {
    await Self.prune(retention, connector: connector, logger: logger)
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    writer.enqueue(writes, completion: completion)
  }

  /// Reads one consistent snapshot: `body` gets a connection inside a repeatable-read
  /// transaction, and where the snapshot stands in the feed. Following from that position
  /// (`FeedPosition.precedes`) misses nothing and repeats nothing.
  public func snapshot<T: Sendable>(
    _ body: @Sendable (PostgresConnection, FeedPosition) async throws -> T
  ) async throws -> T {
    let connection = try await connector.primary()
    defer { connection.discard() }
    try await connection.query(
      "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
    let position = try await ChangeFeed.position(on: connection, logger: logger)
    let result = try await body(connection, position)
    try await connection.query("COMMIT", logger: logger)
    return result
  }

  /// Follows the feed after `position`: `apply` gets every committed row, this node's own
  /// included, once each and in order; `fellBehind` runs if rows it had not applied were
  /// pruned (`FeedRetention`), after which nothing more is applied.
  public func follow(
    after position: Int64, apply: @escaping @Sendable (FeedEntry) -> Void,
    fellBehind: @escaping @Sendable () -> Void
  ) -> ChangeFollower {
    ChangeFollower(
      connector: connector, node: node, after: position, logger: logger, apply: apply,
      fellBehind: fellBehind)
  }

  /// Pub/sub with the other nodes (started once): `deliver` gets what they publish.
  public func pubsub(
    listening: @escaping @Sendable (PostgresPubSub) -> Void = { _ in },
    deliver:
      @escaping @Sendable (PostgresPubSub.Topic, _ channel: [UInt8], _ message: [UInt8])
      -> Void
  ) -> PostgresPubSub {
    relay.withLock { relay in
      if let relay { return relay }
      let started = PostgresPubSub(
        connector: connector, node: node, logger: logger, listening: listening,
        deliver: deliver)
      relay = started
      return started
    }
  }

  /// Waits for the commits queued, then closes the writer's connection.
  public func close() async {
    pruner.cancel()
    await writer.close()
    await relay.withLock { $0 }?.close()
  }
}

/// What a commit failed with when the store, not the write, was at fault.
public enum PostgresStoreError: StoreFailure, CustomStringConvertible {
  /// No primary reachable, or the connection was lost before COMMIT: nothing was written, and
  /// the command may be retried.
  case unavailable(String)
  /// Whether the write committed is not known: the connection was lost during COMMIT and no
  /// primary could be asked since (then `later` gets the answer once one can), or the
  /// transaction committed but which of its commands rolled back alone is not known (`later`
  /// nil).
  case outcomeUnknown(String, later: OutcomeLater?)
  case closed

  public var nothingWritten: Bool {
    switch self {
    case .unavailable, .closed: true
    case .outcomeUnknown: false
    }
  }

  public var outcomeLater: OutcomeLater? {
    if case .outcomeUnknown(_, let later) = self { return later }
    return nil
  }

  public var description: String {
    switch self {
    case .unavailable(let why): "the database is unavailable: \(why)"
    case .outcomeUnknown(let why, _):
      "the database did not say whether the write committed: \(why)"
    case .closed: "the store is closed"
    }
  }
}
