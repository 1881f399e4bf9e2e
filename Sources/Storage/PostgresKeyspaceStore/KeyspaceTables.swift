import Keyspace
import Logging
import NIOCore
import PostgresNIO
import PostgresStore

/// The keyspace's tables in PostgreSQL, named as in the embedded store: `strings`, and
/// `geo_members` with each member a PostGIS point (SRID 4326) under a GiST index, so GIS tools
/// and SQL read them directly.
public enum KeyspaceTables {
  public static let migrations = [
    PostgresMigration(
      "keyspace-v1",
      [
        """
        CREATE TABLE strings (
          db integer NOT NULL, key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (db, key))
        """,
        """
        CREATE TABLE geo_members (
          fid bigserial PRIMARY KEY,
          db integer NOT NULL, key bytea NOT NULL, member bytea NOT NULL,
          score double precision NOT NULL,
          longitude double precision NOT NULL, latitude double precision NOT NULL,
          geom geometry(Point, 4326) NOT NULL,
          UNIQUE (db, key, member))
        """,
        "CREATE INDEX geo_members_geom ON geo_members USING gist (geom)",
      ])
  ]

  /// The feed section's source for keyspace changes.
  static let source: UInt8 = 1
}

/// One command's (or several's) keyspace changes as a PostgreSQL write. Runs of GEOADDs and of
/// removals go as one statement each over arrays; a run's repeated member keeps its last
/// position, as applying them in turn would.
struct KeyspaceChangesWrite: PostgresWrite {
  var changes: [Change]

  var changeCount: Int { changes.count }
  var needsSavepoint: Bool { false }

  mutating func absorb(_ next: any PostgresWrite) -> Bool {
    guard let next = next as? KeyspaceChangesWrite else { return false }
    changes += next.changes
    return true
  }

  var feed: [FeedSection] {
    var bytes: [UInt8] = []
    for change in changes { ChangeCoding.append(change, to: &bytes) }
    return [FeedSection(source: KeyspaceTables.source, bytes: bytes)]
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    try await KeyLocks.take(for: changes, on: connection, logger: logger)
    var at = 0
    while at < changes.count {
      switch changes[at] {
      case .geoUpsert:
        var run: [MemberKey: (score: Double, longitude: Double, latitude: Double)] = [:]
        var order: [MemberKey] = []
        while at < changes.count,
          case .geoUpsert(let db, let key, let member, let score, let longitude, let latitude) =
            changes[at]
        {
          let id = MemberKey(db: db, key: key, member: member)
          if run.updateValue((score, longitude, latitude), forKey: id) == nil { order.append(id) }
          at += 1
        }
        // In one order on every node, so that two nodes' runs lock shared rows in the same
        // order (fewer deadlocks to retry).
        try await upsert(
          order.sorted(by: MemberKey.precedes).map { ($0, run[$0]!) }, on: connection,
          logger: logger)
      case .geoRemove:
        var removed: [MemberKey] = []
        while at < changes.count, case .geoRemove(let db, let key, let member) = changes[at] {
          removed.append(MemberKey(db: db, key: key, member: member))
          at += 1
        }
        try await connection.query(
          """
          DELETE FROM geo_members WHERE (db, key, member) IN (
            SELECT * FROM unnest(\(removed.map { Int32($0.db) }), \(removed.map { buffer($0.key) }),
              \(removed.map { buffer($0.member) })))
          """, logger: logger)
      case .setString(let db, let key, let value):
        try await connection.query(
          "DELETE FROM geo_members WHERE db = \(Int32(db)) AND key = \(buffer(key))",
          logger: logger)
        try await connection.query(
          """
          INSERT INTO strings (db, key, value) VALUES (\(Int32(db)), \(buffer(key)), \(buffer(value)))
          ON CONFLICT (db, key) DO UPDATE SET value = excluded.value
          """, logger: logger)
        at += 1
      case .deleteKey(let db, let key):
        try await connection.query(
          "DELETE FROM strings WHERE db = \(Int32(db)) AND key = \(buffer(key))", logger: logger)
        try await connection.query(
          "DELETE FROM geo_members WHERE db = \(Int32(db)) AND key = \(buffer(key))",
          logger: logger)
        at += 1
      case .flushDatabase(let db):
        try await connection.query("DELETE FROM strings WHERE db = \(Int32(db))", logger: logger)
        try await connection.query(
          "DELETE FROM geo_members WHERE db = \(Int32(db))", logger: logger)
        at += 1
      case .flushAll:
        try await connection.query("DELETE FROM strings", logger: logger)
        try await connection.query("DELETE FROM geo_members", logger: logger)
        at += 1
      }
    }
  }

  private func upsert(
    _ rows: [(MemberKey, (score: Double, longitude: Double, latitude: Double))],
    on connection: PostgresConnection, logger: Logger
  ) async throws {
    let dbs = rows.map { Int32($0.0.db) }
    let keys = rows.map { buffer($0.0.key) }
    // A member added to a key that another node has just made a string: the string goes, as
    // the command that added it on this node removed it here.
    try await connection.query(
      "DELETE FROM strings WHERE (db, key) IN (SELECT * FROM unnest(\(dbs), \(keys)))",
      logger: logger)
    try await connection.query(
      """
      INSERT INTO geo_members (db, key, member, score, longitude, latitude, geom)
      SELECT d, k, m, s, x, y, ST_SetSRID(ST_MakePoint(x, y), 4326)
      FROM unnest(\(dbs), \(keys), \(rows.map { buffer($0.0.member) }),
        \(rows.map { $0.1.score }), \(rows.map { $0.1.longitude }),
        \(rows.map { $0.1.latitude })) AS u(d, k, m, s, x, y)
      ON CONFLICT (db, key, member) DO UPDATE SET score = excluded.score,
        longitude = excluded.longitude, latitude = excluded.latitude, geom = excluded.geom
      """, logger: logger)
  }
}

/// A member of a GEO key.
struct MemberKey: Hashable {
  let db: Int
  let key: Bytes
  let member: Bytes

  static func precedes(_ a: MemberKey, _ b: MemberKey) -> Bool {
    if a.db != b.db { return a.db < b.db }
    if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
    return a.member.lexicographicallyPrecedes(b.member)
  }
}

func buffer(_ bytes: Bytes) -> ByteBuffer { ByteBuffer(bytes: bytes) }
