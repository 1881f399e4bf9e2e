import GRDB
import Store

extension SQLiteVenues {
  /// venues-v2: guests checked in from a venue's page (a name, and an email or a phone), and
  /// the code each venue's last rotation replaced. Shipped: frozen.
  static let venuesV2 = StoreMigration(
    "venues-v2",
    sql: """
      -- Its check-in page says the code changed, rather than that it is unknown.
      ALTER TABLE venues ADD COLUMN previous_code TEXT;
      -- Times in seconds since 1970: a guest cannot check out, its stay has a fixed length.
      -- notified: mailed of an exposure (once a visit).
      CREATE TABLE venue_guests (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        venue_id INTEGER NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        email TEXT,
        phone TEXT,
        checked_in_at REAL NOT NULL,
        checked_out_at REAL NOT NULL,
        notified INTEGER NOT NULL DEFAULT 0,
        CHECK (email IS NOT NULL OR phone IS NOT NULL)
      );
      CREATE INDEX venue_guests_by_venue ON venue_guests (venue_id, checked_in_at);
      """)
}
