import GRDB
import Store

extension SQLiteWallets {
  /// wallets-v1: the cards each account holds, and their text for search. Shipped: frozen.
  static let walletsV1 = StoreMigration("wallets-v1") { db in
    try db.execute(
      sql: """
        CREATE TABLE wallet_entries (
          account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          card_id INTEGER NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
          -- Seconds since 1970, to the microsecond: the wallet's order, newest first.
          added_at REAL NOT NULL,
          PRIMARY KEY (account_id, card_id)
        );
        CREATE INDEX wallet_entries_by_card ON wallet_entries (card_id);
        -- One row per held card, rowid = account_id << 32 | card_id: a search reads one
        -- account's rows only (a rowid range), ranked by bm25. Accents and case are ignored.
        CREATE VIRTUAL TABLE wallet_search USING fts5 (
          name, company, job_title, email, city, about_me,
          tokenize = 'unicode61 remove_diacritics 2'
        );
        """)
  }
}
