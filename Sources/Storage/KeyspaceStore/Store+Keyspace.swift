import GRDB
import Keyspace
import Store

extension Store {
  /// Queues one command's keyspace changes for the next transaction; `completion` runs as
  /// `commit(_:completion:)`'s does.
  public func commit(
    changes: [Change], completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    commit(changes.isEmpty ? [] : [KeyspaceWrite(changes: changes)], completion: completion)
  }

  /// Queues one command's keyspace changes, and returns once they are durable.
  public func commit(changes: [Change]) async throws {
    try await commit(changes.isEmpty ? [] : [KeyspaceWrite(changes: changes)])
  }

  /// Streams every stored key as the changes that recreate it (`.setString` and `.geoUpsert`),
  /// ordered by db, then key (then member). Reads one consistent snapshot: commits made
  /// meanwhile are not seen.
  public func load(_ body: (Change) throws -> Void) throws {
    try read { db in try Loader.load(db, body) }
  }
}

/// A command's keyspace changes, applied in order through the transaction's one `ChangeWriter`.
/// Needs no savepoint: nothing in a change can fail but SQLite itself (a full disk), which fails
/// the whole transaction anyway.
public struct KeyspaceWrite: SQLiteWrite {
  public let changes: [Change]

  public init(changes: [Change]) { self.changes = changes }

  public var needsSavepoint: Bool { false }
  public var changeCount: Int { changes.count }

  public func apply(to db: GRDB.Database) throws {
    let writer = try ChangeWriter(db)
    for change in changes { try writer.apply(change) }
  }

  public func apply(in transaction: StoreTransaction) throws {
    let writer = try transaction.shared(ChangeWriter.self) { try ChangeWriter($0) }
    for change in changes { try writer.apply(change) }
  }
}
