import Crypto
import Foundation
import GRDB
import Store

extension SQLiteCards {
  /// cards-v4: share codes made from ids (`IdText`), so the table no longer keeps an index of
  /// random texts: a key for them in `id_keys` (accounts-v3 made it); `code` keeps the random
  /// codes given before (printed QR codes carry them; unique among themselves), NULL for cards
  /// made since. The table is rebuilt to drop `code`'s `NOT NULL UNIQUE`; its indexes and the
  /// point index's triggers (cards-v2, cards-v3) are made again, and the point index itself
  /// (keyed by id) and SpatiaLite's entry for `geom` stay as they were. Shipped: frozen.
  static let cardsV4 = StoreMigration("cards-v4") { db in
    try db.execute(
      sql: "INSERT INTO id_keys (purpose, key) VALUES ('codes', ?)",
      arguments: [SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }])
    try StoreMigration.rebuild(
      "cards",
      as: """
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        -- A share code drawn at random before cards-v4; NULL: the id's (IdText).
        code TEXT,
        slug TEXT NOT NULL,
        is_primary INTEGER NOT NULL,
        -- What the owner set: the card model's JSON object.
        fields TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        geom POINT,
        external_id TEXT,
        UNIQUE (owner_id, slug)
        """, db)
    try db.execute(
      sql: """
        CREATE UNIQUE INDEX cards_by_code ON cards (code) WHERE code IS NOT NULL;
        CREATE UNIQUE INDEX cards_by_external_id ON cards (owner_id, external_id)
          WHERE external_id IS NOT NULL;
        CREATE TRIGGER cards_geom_insert AFTER INSERT ON cards WHEN NEW.geom IS NOT NULL BEGIN
          INSERT INTO idx_cards_geom (pkid, xmin, xmax, ymin, ymax) VALUES (NEW.id,
            MbrMinX(NEW.geom), MbrMaxX(NEW.geom), MbrMinY(NEW.geom), MbrMaxY(NEW.geom));
        END;
        CREATE TRIGGER cards_geom_update AFTER UPDATE OF geom ON cards BEGIN
          DELETE FROM idx_cards_geom WHERE pkid = NEW.id;
          INSERT INTO idx_cards_geom (pkid, xmin, xmax, ymin, ymax)
            SELECT NEW.id, MbrMinX(NEW.geom), MbrMaxX(NEW.geom), MbrMinY(NEW.geom),
              MbrMaxY(NEW.geom)
            WHERE NEW.geom IS NOT NULL;
        END;
        CREATE TRIGGER cards_geom_delete AFTER DELETE ON cards BEGIN
          DELETE FROM idx_cards_geom WHERE pkid = OLD.id;
        END;
        """)
  }
}
