import GRDB
import Store

extension SQLiteCardViews {
  /// card-views-v2: anonymous visits of card pages, one row per card, UTC day and visitor,
  /// where the visitor is a hash under a salt of that day that is never stored (`Visitor`).
  /// Shipped: frozen.
  static let cardViewsV2 = StoreMigration("card-views-v2") { db in
    try db.execute(
      sql: """
        CREATE TABLE card_visits (
          card_id INTEGER NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
          day INTEGER NOT NULL,
          visitor BLOB NOT NULL,
          PRIMARY KEY (card_id, day, visitor)
        ) WITHOUT ROWID;
        """)
  }
}
