import Store

extension SQLiteAssets {
  /// assets-v1: uploaded profile images, logos and CVs; their files (named here) are in
  /// `<data>/media/assets`. Which cards name an asset is not stored: it is read from the cards'
  /// fields at start. Shipped: frozen.
  static let assetsV1 = StoreMigration(
    "assets-v1",
    sql: """
      CREATE TABLE assets (
        -- 32 random hex digits: the URL's /a/<id>, never given again.
        id TEXT PRIMARY KEY,
        owner_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('image', 'logo', 'cv')),
        -- jpeg, png, webp or pdf: the file is <id>.<jpg|png|webp|pdf>, written and synced
        -- before this row commits.
        type TEXT NOT NULL CHECK (type IN ('jpeg', 'png', 'webp', 'pdf')),
        bytes INTEGER NOT NULL,
        -- An image's size in pixels from its header; NULL for a PDF.
        width INTEGER,
        height INTEGER,
        -- Seconds since 1970.
        created_at REAL NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX assets_by_owner ON assets (owner_id);
      """)
}
