import GRDB
import Store

extension SQLiteCardViews {
  /// card-views-v1: who opened which card on which day, and what owners chose to hear of.
  /// Shipped: frozen.
  static let cardViewsV1 = StoreMigration("card-views-v1") { db in
    try db.execute(
      sql: """
        -- One row per card, UTC day (days since 1970-01-01) and viewer: a viewer counts once a
        -- day. A card's rows go with it, a viewer's with its account.
        CREATE TABLE card_views (
          card_id INTEGER NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
          day INTEGER NOT NULL,
          viewer_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          PRIMARY KEY (card_id, day, viewer_id)
        ) WITHOUT ROWID;
        CREATE INDEX card_views_by_viewer ON card_views (viewer_id);
        -- The events an owner hears of on account:<id> (NOTIFY.SET); none without a row.
        CREATE TABLE notify_settings (
          account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
          views INTEGER NOT NULL,
          wallet_adds INTEGER NOT NULL
        );
        """)
  }
}
