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
  static let core: [StoreMigration] = [.v1, .v2, .v3]
}

extension StoreMigration {
  /// Runs a SpatiaLite function, which answers 0 rather than throwing when it fails.
  static func requireSpatiaLite(_ call: String, _ db: GRDB.Database) throws {
    guard try Int.fetchOne(db, sql: "SELECT \(call)") == 1 else {
      throw StoreError.sqlite(code: 1, message: "SpatiaLite \(call) failed")
    }
  }

  /// Drops every trigger on `table` (SpatiaLite's own differ between its versions).
  public static func dropTriggers(on table: String, _ db: GRDB.Database) throws {
    let names = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
      arguments: [table])
    for name in names { try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)") }
  }
}

extension StoreMigration {
  /// Rebuilds `table` as `definition` with its rows, SQLite's way to drop a constraint: a new
  /// table, the rows copied column by column, the old one dropped and the new one renamed. Its
  /// AUTOINCREMENT sequence is kept (it remembers deleted rows' ids, which the copy does not).
  /// The old table's indexes and triggers go with it: the caller makes them again. Foreign keys
  /// elsewhere name the table and so find the new one; GRDB runs a migration with them off and
  /// checks them all at its end.
  public static func rebuild(_ table: String, as definition: String, _ db: GRDB.Database) throws {
    let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))")
      .map { ($0["name"] as String).quotedDatabaseIdentifier }.joined(separator: ", ")
    let sequence = try Int64.fetchOne(
      db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])
    try db.execute(
      sql: """
        CREATE TABLE \(table)_rebuilt (\(definition));
        INSERT INTO \(table)_rebuilt (\(columns)) SELECT \(columns) FROM \(table);
        DROP TABLE \(table);
        ALTER TABLE \(table)_rebuilt RENAME TO \(table);
        DELETE FROM sqlite_sequence WHERE name = '\(table)';
        """)
    if let sequence {
      try db.execute(
        sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [table, sequence])
    }
  }
}
