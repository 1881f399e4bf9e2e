import Store

extension SQLitePins {
  /// pins-v1: photo pins, their photos' files (named here, held in the data directory), and
  /// the votes. Shipped: frozen.
  static let pinsV1 = StoreMigration(
    "pins-v1",
    sql: """
      -- AUTOINCREMENT: a deleted pin's id (also its index id) is never given again.
      CREATE TABLE pins (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        lon REAL NOT NULL,
        lat REAL NOT NULL,
        -- The viewing circle's radius in whole metres.
        radius REAL NOT NULL,
        caption TEXT,
        -- Seconds since 1970.
        taken_at REAL,
        created_at REAL NOT NULL,
        -- The photo's file in the data directory (written and synced before this row names
        -- it), its media type, pixel size and length; all NULL while the pin has none.
        photo TEXT,
        photo_type TEXT,
        photo_width INTEGER,
        photo_height INTEGER,
        photo_bytes INTEGER
      );
      CREATE INDEX pins_by_owner ON pins (owner_id);
      -- One vote per account and pin: +1 up, -1 down; no row, no vote.
      CREATE TABLE pin_votes (
        pin_id INTEGER NOT NULL REFERENCES pins (id) ON DELETE CASCADE,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        vote INTEGER NOT NULL CHECK (vote IN (-1, 1)),
        PRIMARY KEY (pin_id, account_id)
      ) WITHOUT ROWID;
      CREATE INDEX pin_votes_by_account ON pin_votes (account_id);
      """)
}
