import GRDB
import Store

extension SQLiteVenues {
  /// venues-v1: venues and their check-in codes, visits (an account's, or a dependant's checked
  /// in with it), dependants, favorites, and the exposure notices visitors were sent.
  /// Shipped: frozen.
  static let venuesV1 = StoreMigration(
    "venues-v1",
    sql: """
      -- AUTOINCREMENT: an id is never given again (ids are also places in memory's tables).
      CREATE TABLE venues (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        owner_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        lon REAL NOT NULL,
        lat REAL NOT NULL,
        address TEXT,
        -- What the venue's QR code holds; a rotation replaces it.
        code TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL
      );
      CREATE INDEX venues_by_owner ON venues (owner_id);
      -- Family members without a login: checked in with their account. A removed one keeps
      -- its row (its visits still count for exposure) but checks in no more.
      CREATE TABLE venue_dependants (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        removed INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
      );
      CREATE INDEX venue_dependants_by_account ON venue_dependants (account_id);
      -- Times in seconds since 1970; checked_out_at NULL while the visit is open.
      CREATE TABLE venue_visits (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        venue_id INTEGER NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        dependant_id INTEGER REFERENCES venue_dependants (id) ON DELETE CASCADE,
        checked_in_at REAL NOT NULL,
        checked_out_at REAL
      );
      CREATE INDEX venue_visits_by_venue ON venue_visits (venue_id, checked_in_at);
      CREATE INDEX venue_visits_by_account ON venue_visits (account_id, checked_in_at);
      CREATE TABLE venue_favorites (
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        venue_id INTEGER NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
        added_at REAL NOT NULL,
        PRIMARY KEY (account_id, venue_id)
      );
      -- What a visitor was told of an exposure: the venue (its name kept as it was) and a
      -- window, never who. dependant_id 0: the account itself.
      CREATE TABLE exposure_notices (
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        dependant_id INTEGER NOT NULL,
        venue_id INTEGER NOT NULL,
        venue_name TEXT NOT NULL,
        from_at REAL NOT NULL,
        to_at REAL NOT NULL,
        reported_at REAL NOT NULL,
        PRIMARY KEY (account_id, dependant_id, venue_id, from_at, to_at)
      );
      """)
}
