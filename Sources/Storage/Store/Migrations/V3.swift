import GRDB

extension StoreMigration {
  /// v3: the tokens of what the domain held at the last clean stop (`HeldFiles`): a row names
  /// a file beside the store and the random token it begins with. Shipped: frozen.
  static let v3 = StoreMigration(
    "v3",
    sql: """
      CREATE TABLE held_files (name TEXT PRIMARY KEY NOT NULL, token BLOB NOT NULL);
      """)
}
