import GRDB
import Store

/// Where `GeocodeCache` keeps its table: the service's store (writes go through its group
/// commit), or a database of its own for the command line. A read runs on the caller's thread:
/// a look-up takes microseconds, and a hop to a queue and back cost more than that.
public protocol GeocodeCacheDatabase: Sendable {
  func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T
  func write(_ body: @escaping @Sendable (GRDB.Database) throws -> Void) async throws
}

/// The cache inside the store: bring `GeocodeCache.migrations` to `Store.init`.
public struct StoreCacheDatabase: GeocodeCacheDatabase {
  public let store: Store

  public init(_ store: Store) { self.store = store }

  public func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T { try store.read(body) }

  public func write(_ body: @escaping @Sendable (GRDB.Database) throws -> Void) async throws {
    try await store.commit([CacheWrite(body: body)])
  }

  private struct CacheWrite: SQLiteWrite {
    let body: @Sendable (GRDB.Database) throws -> Void
    func apply(to db: GRDB.Database) throws { try body(db) }
  }
}

/// The cache in a database of its own (any GRDB writer: a file's `DatabaseQueue`, an in-memory
/// one for tests), migrated on `init`.
public struct StandaloneCacheDatabase: GeocodeCacheDatabase {
  public let writer: any DatabaseWriter

  public init(_ writer: any DatabaseWriter) throws {
    var migrator = DatabaseMigrator()
    // The same name and SQL as the store's migration: one schema history for both.
    migrator.registerMigration(GeocodeCache.migrationName) { db in
      try db.execute(sql: GeocodeCache.v1SQL)
    }
    try migrator.migrate(writer)
    self.writer = writer
  }

  /// A file, e.g. `<data>/geocode-cache.sqlite`, in WAL mode so that readers do not wait.
  public init(path: String) throws {
    try self.init(DatabasePool(path: path))
  }

  public func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T { try writer.read(body) }

  public func write(_ body: @escaping @Sendable (GRDB.Database) throws -> Void) async throws {
    try await writer.write(body)
  }
}
