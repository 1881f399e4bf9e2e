import GRDB
import Store

extension SQLiteCards {
  /// cards-v2: the id an import gave a card (`cardatlas import`'s `externalId`), unique per
  /// owner, so that importing the same rows again updates those cards. Shipped: frozen.
  static let cardsV2 = StoreMigration("cards-v2") { db in
    try db.execute(
      sql: """
        ALTER TABLE cards ADD COLUMN external_id TEXT;
        CREATE UNIQUE INDEX cards_by_external_id ON cards (owner_id, external_id)
          WHERE external_id IS NOT NULL;
        """)
  }
}
