import Keyspace
import Logging
import PostgresNIO

/// The locks that put two nodes' writes to one key in commit order. Row locks alone do not: a
/// DELETE does not see, so does not wait for, a row another transaction has inserted and not yet
/// committed, and would commit after it while the database keeps the row. So a write first
/// takes, for the transaction, an advisory lock on each key it touches (exclusive) and on each
/// database (shared; exclusive for FLUSHDB, all sixteen for FLUSHALL). Whoever takes a key
/// second waits for the first to commit, then reads what it committed and commits after it.
/// Taken in one statement in one order (databases, then keys, by number), so two writers never
/// hold them crosswise; the rows they cover then never deadlock either.
enum KeyLocks {
  static func take(for changes: [Change], on connection: PostgresConnection, logger: Logger)
    async throws
  {
    var keys: Set<Int64> = []
    var shared: Set<Int64> = []
    var exclusive: Set<Int64> = []
    for change in changes {
      switch change {
      case .geoUpsert(let db, let key, _, _, _, _), .geoRemove(let db, let key, _),
        .setString(let db, let key, _), .deleteKey(let db, let key):
        keys.insert(Self.key(db, key))
        shared.insert(Self.database(db))
      case .flushDatabase(let db): exclusive.insert(Self.database(db))
      case .flushAll: for db in 0..<Keyspace.databaseCount { exclusive.insert(Self.database(db)) }
      }
    }
    shared.subtract(exclusive)
    try await connection.run(
      """
      SELECT count(*) FROM (
        SELECT pg_advisory_xact_lock_shared(d) FROM unnest(\(shared.sorted())::bigint[]) AS d
        UNION ALL
        SELECT pg_advisory_xact_lock(d) FROM unnest(\(exclusive.sorted())::bigint[]) AS d
      ) AS databases
      """, logger: logger)
    try await connection.run(
      """
      SELECT count(pg_advisory_xact_lock(k))
      FROM (SELECT k FROM unnest(\(keys.sorted())::bigint[]) AS k ORDER BY k) AS keys
      """, logger: logger)
  }

  /// A database's lock: small numbers, apart from every key's (whose top bit is set).
  static func database(_ db: Int) -> Int64 { 0x4361_7264_1000 + Int64(db) }

  /// A key's lock: FNV-1a of the database and the key's bytes, top bit set. Two keys sharing
  /// one only wait for each other.
  static func key(_ db: Int, _ key: Bytes) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in withUnsafeBytes(of: UInt32(db).littleEndian, Array.init) + key {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return Int64(bitPattern: hash | (1 << 63))
  }
}
