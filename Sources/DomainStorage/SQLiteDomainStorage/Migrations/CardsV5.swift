import GRDB
import Store

extension SQLiteCards {
  /// cards-v5: any write to what the cards' held file was made from (the cards, the reserved
  /// URLs, the accounts a summary names, the codes' key) takes the file's token out of
  /// `held_files` (the store's v3), whoever writes: a GIS tool or `sqlite3` editing a stopped
  /// store makes the next start read the rows (`HeldFiles`). A migration that rebuilds one of
  /// these tables makes its triggers again. Shipped: frozen.
  static let cardsV5 = StoreMigration("cards-v5") { db in
    for table in ["cards", "card_reserved_urls", "accounts", "id_keys"] {
      for event in ["INSERT", "UPDATE", "DELETE"] {
        try db.execute(
          sql: """
            CREATE TRIGGER \(table)_held_\(event.lowercased()) AFTER \(event) ON \(table)
            BEGIN DELETE FROM held_files WHERE name = 'cards'; END
            """)
      }
    }
  }
}
