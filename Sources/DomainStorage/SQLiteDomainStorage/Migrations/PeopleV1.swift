import GRDB
import Store

extension SQLiteExchanges {
  /// people-v1: requests to exchange cards, and the exchanges made. Presences are never
  /// stored. Shipped: frozen.
  static let peopleV1 = StoreMigration("people-v1") { db in
    try db.execute(
      sql: """
        CREATE TABLE exchange_requests (
          from_account INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          to_account INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          -- Seconds since 1970.
          requested_at REAL NOT NULL,
          PRIMARY KEY (from_account, to_account)
        );
        CREATE INDEX exchange_requests_to ON exchange_requests (to_account);
        -- One row per pair that exchanged, account_a < account_b; card_a is the card a gave.
        -- Where: the midpoint of their cells, to 3 decimals (about 100 m), and its place name.
        CREATE TABLE exchanges (
          id INTEGER PRIMARY KEY,
          account_a INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          account_b INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          card_a INTEGER NOT NULL,
          card_b INTEGER NOT NULL,
          exchanged_at REAL NOT NULL,
          lon REAL,
          lat REAL,
          place TEXT,
          UNIQUE (account_a, account_b)
        );
        CREATE INDEX exchanges_b ON exchanges (account_b);
        """)
  }
}
