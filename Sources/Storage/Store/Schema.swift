import GRDB
// GRDB does not re-export the SQLite C API; we need it for extension loading, the WAL hook and
// allocation-free statement binding.
import GRDBSQLite

/// The database layout, and how every connection is set up.
enum Schema {
  static let fileName = "cardatlas.sqlite"

  /// Loads SpatiaLite into a connection. Every connection needs it: the spatial index triggers
  /// call its functions, and so may whoever reads through us.
  static func loadSpatiaLite(_ db: GRDB.Database) throws {
    let connection = db.sqliteConnection
    sqlite3_enable_load_extension(connection, 1)
    // Loading is re-disabled right away so that no SQL can load a library later.
    defer { sqlite3_enable_load_extension(connection, 0) }
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_load_extension(connection, "mod_spatialite", nil, &message)
    defer { sqlite3_free(message) }
    guard rc == SQLITE_OK else {
      throw StoreError.spatiaLiteUnavailable(message.map { String(cString: $0) } ?? "error \(rc)")
    }
  }

  /// The store's own migrations, then those of the domain modules, in the order given.
  static func migrator(_ domain: [StoreMigration] = []) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for migration in StoreMigration.core + domain {
      migrator.registerMigration(migration.name, migrate: migration.migrate)
    }
    return migrator
  }
}
