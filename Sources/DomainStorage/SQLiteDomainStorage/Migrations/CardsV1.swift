import GRDB
import Store

extension SQLiteCards {
  /// cards-v1: cards, their points (SpatiaLite, for GIS tools), and the reserved primary URLs.
  /// Shipped: frozen.
  static let cardsV1 = StoreMigration("cards-v1") { db in
    try db.execute(
      sql: """
        -- AUTOINCREMENT: a deleted card's id (also its map index id) is never given again.
        CREATE TABLE cards (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          owner_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          code TEXT NOT NULL UNIQUE,
          slug TEXT NOT NULL,
          is_primary INTEGER NOT NULL,
          -- What the owner set: the card model's JSON object.
          fields TEXT NOT NULL,
          created_at REAL NOT NULL,
          updated_at REAL NOT NULL,
          UNIQUE (owner_id, slug)
        );
        CREATE INDEX cards_by_owner ON cards (owner_id);
        -- An account whose primary card was deleted: its URL waits for its next card.
        CREATE TABLE card_reserved_urls (
          account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE
        );
        """)
    // The card's location as a point that QGIS and OGR read; NULL while it has none.
    guard
      try Int.fetchOne(
        db, sql: "SELECT AddGeometryColumn('cards', 'geom', 4326, 'POINT', 'XY')") == 1,
      try Int.fetchOne(db, sql: "SELECT CreateSpatialIndex('cards', 'geom')") == 1
    else { throw StoreError.sqlite(code: 1, message: "SpatiaLite could not add cards.geom") }
  }
}
