import GRDB

/// One step of the store's schema history: GRDB records its name once it has run, and never
/// runs it again.
///
/// A migration that has shipped never changes (GRDB's rule: a store made by an older build must
/// upgrade to exactly what a new store gets). So each is frozen in a file of its own as literal
/// SQL, with no reference to constants the code may later change; a later change to the schema
/// is a new migration. Domain modules bring theirs to `Store.init`, after the store's own.
public struct StoreMigration: Sendable {
  public let name: String
  let migrate: @Sendable (GRDB.Database) throws -> Void

  /// A migration that runs `migrate` inside GRDB's migration transaction.
  public init(_ name: String, migrate: @escaping @Sendable (GRDB.Database) throws -> Void) {
    self.name = name
    self.migrate = migrate
  }

  /// A migration that is one script of SQL statements.
  public init(_ name: String, sql: String) {
    self.init(name) { db in try db.execute(sql: sql) }
  }

  /// The store's own migrations, oldest first.
  static let core: [StoreMigration] = [.v1, .v2]
}

extension StoreMigration {
  /// Runs a SpatiaLite function, which answers 0 rather than throwing when it fails.
  static func requireSpatiaLite(_ call: String, _ db: GRDB.Database) throws {
    guard try Int.fetchOne(db, sql: "SELECT \(call)") == 1 else {
      throw StoreError.sqlite(code: 1, message: "SpatiaLite \(call) failed")
    }
  }

  /// Drops every trigger on `table` (SpatiaLite's own differ between its versions).
  static func dropTriggers(on table: String, _ db: GRDB.Database) throws {
    let names = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
      arguments: [table])
    for name in names { try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)") }
  }
}
