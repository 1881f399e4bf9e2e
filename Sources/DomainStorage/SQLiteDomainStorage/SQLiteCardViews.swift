import Cards
import Foundation
import GRDB
import Store
import Synchronization

/// Counted views in the embedded store: `card_views` (a signed-in viewer's, by card, day and
/// account) and `card_visits` (an anonymous visitor's, by the hash of its client).
public struct SQLiteCardViews: CardViewStorage {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, after the wallets' (card-views-v1 made `notify_settings`
  /// too: `SQLiteNoticeSettings`).
  public static let migrations = [cardViewsV1, cardViewsV2]

  public func recording(
    card: Int64, viewer: Int64, day: Int, then: @escaping @Sendable (_ new: Bool) -> Void
  ) -> any DurableWrite {
    ViewWrite(
      sql: "INSERT OR IGNORE INTO card_views (card_id, day, viewer_id) VALUES (?, ?, ?)",
      arguments: [card, day, viewer], then: then)
  }

  public func recording(
    card: Int64, visitor: Data, day: Int, then: @escaping @Sendable (_ new: Bool) -> Void
  ) -> any DurableWrite {
    ViewWrite(
      sql: "INSERT OR IGNORE INTO card_visits (card_id, day, visitor) VALUES (?, ?, ?)",
      arguments: [card, day, visitor], then: then)
  }

  public func views(
    of card: Int64, from: Int, to: Int,
    _ done: @escaping @Sendable (Result<[(day: Int, views: Int)], any Error>) -> Void
  ) {
    done(Result { try views(of: card, from: from, to: to) })
  }

  private func views(of card: Int64, from: Int, to: Int) throws -> [(day: Int, views: Int)] {
    try store.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT day, COUNT(*) AS views FROM (
            SELECT day FROM card_views WHERE card_id = ?1 AND day BETWEEN ?2 AND ?3
            UNION ALL
            SELECT day FROM card_visits WHERE card_id = ?1 AND day BETWEEN ?2 AND ?3
          ) GROUP BY day ORDER BY day
          """,
        arguments: [card, from, to]
      ).map { (day: $0[0], views: $0[1]) }
    }
  }

  /// Every counted view, for `cardatlas migrate`.
  public func all() throws -> StoredViews {
    try store.read { db in
      StoredViews(
        views: try Row.fetchAll(db, sql: "SELECT card_id, day, viewer_id FROM card_views").map {
          (card: $0[0], day: $0[1], viewer: $0[2])
        },
        visits: try Row.fetchAll(db, sql: "SELECT card_id, day, visitor FROM card_visits").map {
          (card: $0[0], day: $0[1], visitor: $0[2])
        })
    }
  }

  public func deletingViews(of card: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM card_views WHERE card_id = ?", arguments: [card])
      try db.execute(sql: "DELETE FROM card_visits WHERE card_id = ?", arguments: [card])
    }
  }

  public func deletingViews(by viewer: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM card_views WHERE viewer_id = ?", arguments: [viewer])
    }
  }
}

/// One counted view: stored unless the store already has it (a pair forgotten by memory), and
/// told as new once durable only if it was.
private final class ViewWrite: SQLiteWrite {
  private let sql: String
  private let arguments: StatementArguments
  private let then: @Sendable (Bool) -> Void
  private let inserted = Atomic<Bool>(false)

  init(sql: String, arguments: StatementArguments, then: @escaping @Sendable (Bool) -> Void) {
    self.sql = sql
    self.arguments = arguments
    self.then = then
  }

  func apply(to db: Database) throws {
    try db.execute(sql: sql, arguments: arguments)
    inserted.store(db.changesCount > 0, ordering: .relaxed)
  }

  func committed() { then(inserted.load(ordering: .relaxed)) }
}

/// What owners chose to hear of, in the embedded store: `notify_settings` (made by
/// card-views-v1).
public struct SQLiteNoticeSettings: NoticeStorage {
  let store: Store

  public init(_ store: Store) { self.store = store }

  public func load() throws -> [Int64: Notices.Settings] {
    try store.read { db in
      var all: [Int64: Notices.Settings] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT account_id, views, wallet_adds FROM notify_settings")
      {
        all[row[0]] = Notices.Settings(views: row[1], walletAdds: row[2])
      }
      return all
    }
  }

  public func syncing(account: Int64, current: @escaping @Sendable () -> Notices.Settings)
    -> any DurableWrite
  {
    TransactionWrite { db in
      let now = current()
      try db.execute(
        sql: """
          INSERT INTO notify_settings (account_id, views, wallet_adds) VALUES (?, ?, ?)
          ON CONFLICT (account_id) DO UPDATE
          SET views = excluded.views, wallet_adds = excluded.wallet_adds
          """,
        arguments: [account, now.views, now.walletAdds])
    }
  }

  public func deleting(account: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM notify_settings WHERE account_id = ?", arguments: [account])
    }
  }
}
