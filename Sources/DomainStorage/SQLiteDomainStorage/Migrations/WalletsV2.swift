import GRDB
import Store

extension SQLiteWallets {
  /// wallets-v2: the search index is in memory (`WalletIndex`, rebuilt from the held cards at
  /// start), so the FTS5 copy of the held cards' text goes. Shipped: frozen.
  static let walletsV2 = StoreMigration("wallets-v2") { db in
    try db.execute(sql: "DROP TABLE wallet_search")
  }
}
