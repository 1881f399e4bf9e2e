import GRDB
import GeocoderClients
import Store
import Synchronization

/// The geocoders' answers in the embedded store: `geocode_cache`, written through the store's
/// group commit.
public struct SQLiteGeocodeCache: GeocodeCacheStorage {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The table's migration, frozen, after every other domain's.
  public static let migrations = [StoreMigration(migrationName, sql: geocodeCacheV1SQL)]
  static let migrationName = "geocode-cache-v1"

  public func answers(_ keys: [GeocodeCache.Key], unexpiredAt time: Double) async throws
    -> [String?]
  {
    try store.read { try Self.answers(keys, time, $0) }
  }

  public func keep(
    _ answer: String, for key: GeocodeCache.Key, at time: Double, until expiry: Double
  ) async throws {
    try await store.commit([
      TransactionWrite { try Self.keep(answer, key, time, expiry, $0) }
    ])
  }

  public func purge(expiredAt time: Double) async throws -> Int {
    let purged = Atomic<Int>(0)
    try await store.commit([
      TransactionWrite { purged.store(try Self.purge(time, $0), ordering: .relaxed) }
    ])
    return purged.load(ordering: .relaxed)
  }

  static func answers(_ keys: [GeocodeCache.Key], _ time: Double, _ db: Database) throws
    -> [String?]
  {
    let statement = try db.cachedStatement(
      sql: """
        SELECT places FROM geocode_cache
        WHERE provider = ? AND kind = ? AND request = ? AND expires_at > ?
        """)
    return try keys.map { key in
      try String.fetchOne(statement, arguments: [key.provider, key.kind, key.request, time])
    }
  }

  static func keep(
    _ answer: String, _ key: GeocodeCache.Key, _ time: Double, _ expiry: Double, _ db: Database
  ) throws {
    try db.execute(
      sql: """
        INSERT OR REPLACE INTO geocode_cache
          (provider, kind, request, places, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """,
      arguments: [key.provider, key.kind, key.request, answer, time, expiry])
  }

  static func purge(_ time: Double, _ db: Database) throws -> Int {
    try db.execute(sql: "DELETE FROM geocode_cache WHERE expires_at <= ?", arguments: [time])
    return db.changesCount
  }
}

/// The geocoders' answers in a database of their own (any GRDB writer: a file's pool, an
/// in-memory queue for tests), migrated on `init`: the command line's cache.
public struct SQLiteGeocodeCacheFile: GeocodeCacheStorage {
  let writer: any DatabaseWriter

  public init(_ writer: any DatabaseWriter) throws {
    var migrator = DatabaseMigrator()
    // The same name and SQL as the store's migration: one schema history for both.
    migrator.registerMigration(SQLiteGeocodeCache.migrationName) { db in
      try db.execute(sql: SQLiteGeocodeCache.geocodeCacheV1SQL)
    }
    try migrator.migrate(writer)
    self.writer = writer
  }

  /// A file, e.g. `<data>/geocode-cache.sqlite`, in WAL mode so that readers do not wait.
  public init(path: String) throws {
    try self.init(DatabasePool(path: path))
  }

  public func answers(_ keys: [GeocodeCache.Key], unexpiredAt time: Double) async throws
    -> [String?]
  {
    try await writer.read { try SQLiteGeocodeCache.answers(keys, time, $0) }
  }

  public func keep(
    _ answer: String, for key: GeocodeCache.Key, at time: Double, until expiry: Double
  ) async throws {
    try await writer.write { try SQLiteGeocodeCache.keep(answer, key, time, expiry, $0) }
  }

  public func purge(expiredAt time: Double) async throws -> Int {
    try await writer.write { try SQLiteGeocodeCache.purge(time, $0) }
  }
}
