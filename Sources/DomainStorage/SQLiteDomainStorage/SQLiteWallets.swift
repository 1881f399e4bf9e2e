import Cards
import GRDB
import Store

/// The wallets in the embedded store: `wallet_entries` (a card's go with it).
public struct SQLiteWallets: WalletStorage {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, after the cards'.
  public static let migrations = [walletsV1, walletsV2]

  public func load() throws -> [(holder: Int64, card: Int64, addedMicros: Int64)] {
    try store.read { db in
      try Row.fetchAll(db, sql: "SELECT account_id, card_id, added_at FROM wallet_entries").map {
        (holder: $0[0], card: $0[1], addedMicros: Int64((($0[2] as Double) * 1e6).rounded()))
      }
    }
  }

  public func syncing(holder: Int64, card: Int64, current: @escaping @Sendable () -> Int64?)
    -> any DurableWrite
  {
    TransactionWrite { db in
      guard let micros = current() else {
        try db.execute(
          sql: "DELETE FROM wallet_entries WHERE account_id = ? AND card_id = ?",
          arguments: [holder, card])
        return
      }
      try db.execute(
        sql: """
          INSERT INTO wallet_entries (account_id, card_id, added_at) VALUES (?, ?, ?)
          ON CONFLICT (account_id, card_id) DO UPDATE SET added_at = excluded.added_at
          """,
        arguments: [holder, card, Double(micros) / 1e6])
    }
  }

  public func deletingWallet(of holder: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM wallet_entries WHERE account_id = ?", arguments: [holder])
    }
  }
}
