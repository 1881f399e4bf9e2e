import Durability
import Keyspace
import Logging
import NIOCore
import PostgresNIO
import PostgresStore
import Synchronization

/// A node's keyspace over the shared store: loaded from PostgreSQL, its writes committed there,
/// and every other node's writes applied to it as the change feed brings them.
///
/// Writes go through `write`. A local write is applied at once (later commands on this node see
/// it) and is pending until
/// its own feed row comes back. Another node's change to something pending here is not applied:
/// the local write commits after it, so it is what the database ends with (docs/STORE.md, "Many
/// nodes"). A local commit that fails reloads what it touched from the database.
public final class PostgresKeyspace: ChangeLog, KeyspaceStorage {
  public let keyspace: Keyspace
  public let store: PostgresStore
  private let pending = Mutex(PendingChanges())
  private let follower = Mutex<ChangeFollower?>(nil)
  private let logger: Logger

  /// Loads `keyspace` (empty) from the store, then follows the feed from where the load read,
  /// and for the node's other modules (`alongside`, loaded before) from where theirs read.
  /// `fellBehind` runs if the feed lost rows this node had not applied (it was silent past the
  /// nodes' timeout): what it holds is stale from then on, and the node must load afresh.
  public convenience init(
    store: PostgresStore, keyspace: Keyspace, alongside: [FeedConsumer] = [], logger: Logger,
    fellBehind: @escaping @Sendable () -> Void
  ) async throws {
    let position = try await Self.load(keyspace, from: store, logger: logger)
    self.init(
      store: store, keyspace: keyspace, loadedAt: position, alongside: alongside, logger: logger,
      fellBehind: fellBehind)
  }

  /// Loads `keyspace` (empty) from one snapshot of the store; returns where the snapshot stands
  /// in the feed. A node loads it while its other modules load.
  public static func load(_ keyspace: Keyspace, from store: PostgresStore, logger: Logger)
    async throws -> FeedPosition
  {
    let (changes, position) = try await store.snapshot { connection, position in
      (try await Self.read(on: connection, logger: logger), position)
    }
    try keyspace.load { emit in for change in changes { try emit(change) } }
    return position
  }

  /// Follows the feed for `keyspace`, loaded up to `position` (`load`), and for `alongside`.
  public init(
    store: PostgresStore, keyspace: Keyspace, loadedAt position: FeedPosition,
    alongside: [FeedConsumer] = [], logger: Logger, fellBehind: @escaping @Sendable () -> Void
  ) {
    self.store = store
    self.keyspace = keyspace
    self.logger = logger
    let start = min(position.id, alongside.map(\.position.id).min() ?? position.id)
    let follower = store.follow(after: start) { [weak self] entry in
      for consumer in alongside where consumer.position.precedes(entry) { consumer.apply(entry) }
      if position.precedes(entry) { self?.follow(entry) }
    } fellBehind: {
      fellBehind()
    }
    self.follower.withLock { $0 = follower }
  }

  /// Runs `body` as one write to the keyspace, its changes queued for the store in the order
  /// writes are made (`append`). `completion` runs once they are durable (at once when there
  /// were none).
  public func write<T>(
    _ body: (inout Keyspace.Writer) throws -> T,
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) rethrows -> T {
    let (result, commit) = try keyspace.write(log: self, body)
    if let commit { commit.whenComplete(completion) } else { completion(.success(())) }
    return result
  }

  /// `write`, returning once the changes are durable.
  public func write<T: Sendable>(_ body: (inout Keyspace.Writer) throws -> T) async throws -> T {
    var result: T?
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      do {
        result = try write(body) { continuation.resume(with: $0) }
      } catch {
        continuation.resume(throwing: error)
      }
    }
    return result!
  }

  /// Queues one write's changes for the store, under the keyspace's lock (`ChangeLog`): two
  /// writes to one member from two threads cannot commit in the other order, and the write is
  /// pending before another node's change can be applied (that takes the lock too).
  public func append(_ changes: [Change]) -> Commit {
    pending.withLock { $0.add(changes, by: 1) }
    let commit = Commit()
    store.commit([KeyspaceChangesWrite(changes: changes)]) { [self] result in
      if case .failure(let error) = result {
        // A commit that went through after all is counted by its own feed row instead.
        unlessCommittedLater(error) { [self] in
          pending.withLock { $0.add(changes, by: -1) }
          // In the feed's order: rows after the reload's snapshot, this node's own included,
          // are applied after it.
          if let follower = follower.withLock({ $0 }) {
            follower.interject { [weak self] in await self?.reload(changes) }
          } else {
            Task(executorPreference: store.connector.executor) { await self.reload(changes) }
          }
        }
      }
      commit.complete(result)
    }
    return commit
  }

  /// The feed position applied so far.
  public var position: Int64 { follower.withLock { $0?.position ?? 0 } }

  /// This node's keyspace changes whose feed rows have not come back yet: 0 once quiet.
  public var ownChangesPending: Int { pending.withLock { $0.count } }

  /// Returns true once the feed is applied up to `position`.
  public func waitUntilApplied(_ position: Int64, timeout: Duration = .seconds(10)) async -> Bool {
    guard let follower = follower.withLock({ $0 }) else { return false }
    return await follower.waitUntilApplied(position, timeout: timeout)
  }

  public var log: any ChangeLog { self }

  public func persistence() -> [(String, String)] {
    [("cardatlas_store", "postgresql"), ("cardatlas_node", store.node)]
  }

  /// Whether the follower is connected, and how long since it last read to the feed's end.
  public var feed: (connected: Bool, sinceCaughtUp: Duration)? {
    follower.withLock { $0 }.map { ($0.isConnected, $0.sinceCaughtUp) }
  }

  /// The feed as this node follows it: connected or not, how far applied, and how long since
  /// it last read to the feed's end (under 0.25 s while it keeps up).
  public func replication() -> [(String, String)] {
    let follower = follower.withLock { $0 }
    let ago = follower?.sinceCaughtUp.components
    return [
      ("feed_connected", follower?.isConnected == true ? "1" : "0"),
      ("feed_applied_position", String(position)),
      ("feed_own_changes_pending", String(ownChangesPending)),
      (
        "feed_caught_up_ms_ago",
        ago.map { String($0.seconds * 1000 + $0.attoseconds / 1_000_000_000_000_000) } ?? ""
      ),
    ]
  }

  public struct BackupUnavailable: Error, CustomStringConvertible {
    public var description: String {
      "BACKUP copies the embedded store; with PostgreSQL, back up the database (pg_dump, "
        + "pg_basebackup, or the service's own backups)"
    }
  }

  public func backup(to path: String) throws { throw BackupUnavailable() }

  /// Waits for the writes queued, then stops following and closes the store.
  public func close() async {
    await store.close()
    await follower.withLock { $0 }?.stop()
  }

  private func follow(_ entry: FeedEntry) {
    for section in entry.sections where section.source == KeyspaceTables.source {
      guard let changes = ChangeCoding.changes(section.bytes[...]) else {
        logger.error(
          "change feed: keyspace section unreadable", metadata: ["id": "\(entry.position)"])
        continue
      }
      // A node's own row ends its pending count, then applies like any other: what memory
      // holds already, unless a reload after a failed commit put an older state there.
      let own = entry.node == store.node
      keyspace.applyFollowed { writer in
        pending.withLock { pending in
          if own { pending.add(changes, by: -1) }
          for change in changes { pending.apply(change, with: &writer) }
        }
      }
    }
  }

  /// After a failed commit: what it touched, as the database holds it now. (Feed rows still to
  /// come replay older states of it on the way to the same end.)
  private func reload(_ changes: [Change]) async {
    do {
      let stored = try await store.snapshot { connection, _ in
        try await Self.read(on: connection, logger: logger)
      }
      let touched = Set(changes.flatMap(PendingChanges.keys(of:)))
      keyspace.applyFollowed { writer in
        for ref in touched {
          writer.apply(
            ref.key.map { .deleteKey(db: ref.db, key: $0) } ?? .flushDatabase(db: ref.db))
        }
        for change in stored {
          switch change {
          case .geoUpsert(let db, let key, _, _, _, _), .setString(let db, let key, _):
            if touched.contains(PendingChanges.KeyRef(db: db, key: key))
              || touched.contains(PendingChanges.KeyRef(db: db, key: nil))
            {
              writer.apply(change)
            }
          default: break
          }
        }
      }
    } catch {
      logger.error(
        "could not reload keys after a failed commit",
        metadata: ["error": "\(String(reflecting: error))"])
    }
  }

  /// Every stored key as the changes that recreate it: strings, then GEO members ordered by
  /// (db, key, member).
  static func read(on connection: PostgresConnection, logger: Logger) async throws -> [Change] {
    var changes: [Change] = []
    let strings = try await connection.query(
      "SELECT db, key, value FROM strings ORDER BY db, key", logger: logger)
    for try await (db, key, value) in strings.decode((Int32, ByteBuffer, ByteBuffer).self) {
      changes.append(
        .setString(db: Int(db), key: Bytes(buffer: key), value: Bytes(buffer: value)))
    }
    let members = try await connection.query(
      """
      SELECT db, key, member, score, longitude, latitude FROM geo_members
      ORDER BY db, key, member
      """, logger: logger)
    for try await (db, key, member, score, longitude, latitude) in members.decode(
      (Int32, ByteBuffer, ByteBuffer, Double, Double, Double).self)
    {
      changes.append(
        .geoUpsert(
          db: Int(db), key: Bytes(buffer: key), member: Bytes(buffer: member), score: score,
          longitude: longitude, latitude: latitude))
    }
    return changes
  }
}
