import Cards
import Durability
import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Synchronization

/// The wallets, the owners' choices of notices and the counted views in PostgreSQL, in tables
/// named as the embedded store's. The wallets' and the notices' writes ride in the change feed
/// to the other nodes (`consumer(wallets:notices:)`); views are read from the database, where
/// every node's are.
public final class PostgresCardTables: Sendable {
  public static let migrations = [
    PostgresMigration(
      "wallets-v1",
      [
        """
        CREATE TABLE wallet_entries (
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          card_id bigint NOT NULL REFERENCES cards ON DELETE CASCADE,
          -- Microseconds since 1970: the wallet's order, newest first.
          added_at bigint NOT NULL,
          PRIMARY KEY (account_id, card_id))
        """,
        "CREATE INDEX wallet_entries_by_card ON wallet_entries (card_id)",
        """
        CREATE TABLE notify_settings (
          account_id bigint PRIMARY KEY REFERENCES accounts ON DELETE CASCADE,
          views boolean NOT NULL,
          wallet_adds boolean NOT NULL)
        """,
        // A signed-in viewer counts once a day per card; an anonymous visitor by a daily hash.
        """
        CREATE TABLE card_views (
          card_id bigint NOT NULL REFERENCES cards ON DELETE CASCADE,
          day integer NOT NULL,
          viewer_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          PRIMARY KEY (card_id, day, viewer_id))
        """,
        "CREATE INDEX card_views_by_viewer ON card_views (viewer_id)",
        """
        CREATE TABLE card_visits (
          card_id bigint NOT NULL REFERENCES cards ON DELETE CASCADE,
          day integer NOT NULL,
          visitor bytea NOT NULL,
          PRIMARY KEY (card_id, day, visitor))
        """,
      ])
  ]

  /// The feed sections' sources.
  static let walletSource: UInt8 = 4
  static let noticeSource: UInt8 = 5

  let store: PostgresStore
  private let entries: Mutex<[(holder: Int64, card: Int64, addedMicros: Int64)]?>
  private let settings: [Int64: Notices.Settings]
  private let position: FeedPosition

  /// Reads every wallet entry and every owner's settings in one snapshot.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    let (entries, settings, position) = try await store.snapshot { connection, position in
      var entries: [(holder: Int64, card: Int64, addedMicros: Int64)] = []
      for try await (holder, card, added) in try await connection.query(
        "SELECT account_id, card_id, added_at FROM wallet_entries", logger: logger
      ).decode((Int64, Int64, Int64).self) {
        entries.append((holder, card, added))
      }
      var settings: [Int64: Notices.Settings] = [:]
      for try await (account, views, walletAdds) in try await connection.query(
        "SELECT account_id, views, wallet_adds FROM notify_settings", logger: logger
      ).decode((Int64, Bool, Bool).self) {
        settings[account] = Notices.Settings(views: views, walletAdds: walletAdds)
      }
      return (entries, settings, position)
    }
    self.entries = Mutex(entries)
    self.settings = settings
    self.position = position
  }

  public var wallets: any WalletStorage { WalletTable(tables: self) }
  public var notices: any NoticeStorage { NoticeTable(tables: self) }
  public var views: any CardViewStorage { ViewTables(store: store) }

  /// Applies every other node's wallet and notice changes, from where the load read.
  public func consumer(wallets: Wallets, notices: Notices, logger: Logger)
    -> FeedConsumer
  {
    FeedConsumer(position: position) { [store] entry in
      guard entry.node != store.node else { return }
      for section in entry.sections {
        let bytes = Data(section.bytes)
        switch section.source {
        case Self.walletSource:
          guard let change = try? JSONDecoder().decode(WalletChange.self, from: bytes) else {
            return logger.error("change feed: wallet section unreadable")
          }
          wallets.apply(followed: change)
        case Self.noticeSource:
          guard let change = try? JSONDecoder().decode(NoticeChange.self, from: bytes) else {
            return logger.error("change feed: notice section unreadable")
          }
          notices.apply(followed: change)
        default: continue
        }
      }
    }
  }

  struct WalletTable: WalletStorage {
    let tables: PostgresCardTables

    func load() throws -> [(holder: Int64, card: Int64, addedMicros: Int64)] {
      tables.entries.withLock { entries in
        defer { entries = nil }
        return entries ?? []
      }
    }

    func syncing(holder: Int64, card: Int64, current: @escaping @Sendable () -> Int64?)
      -> any DurableWrite
    {
      SyncedWrite(source: walletSource) { connection, logger in
        let micros = current()
        if let micros {
          try await connection.query(
            """
            INSERT INTO wallet_entries (account_id, card_id, added_at)
            VALUES (\(holder), \(card), \(micros))
            ON CONFLICT (account_id, card_id) DO UPDATE SET added_at = excluded.added_at
            """, logger: logger)
        } else {
          try await connection.query(
            "DELETE FROM wallet_entries WHERE account_id = \(holder) AND card_id = \(card)",
            logger: logger)
        }
        return WalletChange.entry(holder: holder, card: card, addedMicros: micros)
      }
    }

    func deletingWallet(of holder: Int64) -> any DurableWrite {
      SyncedWrite(source: walletSource) { connection, logger in
        try await connection.query(
          "DELETE FROM wallet_entries WHERE account_id = \(holder)", logger: logger)
        return WalletChange.deletedWallet(holder: holder)
      }
    }
  }

  struct NoticeTable: NoticeStorage {
    let tables: PostgresCardTables

    func load() throws -> [Int64: Notices.Settings] { tables.settings }

    func syncing(account: Int64, current: @escaping @Sendable () -> Notices.Settings)
      -> any DurableWrite
    {
      SyncedWrite(source: noticeSource) { connection, logger in
        let now = current()
        try await connection.query(
          """
          INSERT INTO notify_settings (account_id, views, wallet_adds)
          VALUES (\(account), \(now.views), \(now.walletAdds))
          ON CONFLICT (account_id) DO UPDATE
          SET views = excluded.views, wallet_adds = excluded.wallet_adds
          """, logger: logger)
        return NoticeChange.settings(account: account, views: now.views, walletAdds: now.walletAdds)
      }
    }

    func deleting(account: Int64) -> any DurableWrite {
      SyncedWrite(source: noticeSource) { connection, logger in
        try await connection.query(
          "DELETE FROM notify_settings WHERE account_id = \(account)", logger: logger)
        return NoticeChange.deleted(account: account)
      }
    }
  }
}

/// A write whose change for the feed is known only as it applies (what memory holds then):
/// `body` writes it and returns it.
final class SyncedWrite<Change: Encodable & Sendable>: PostgresWrite {
  private let source: UInt8
  private let body: @Sendable (PostgresConnection, Logger) async throws -> Change
  private let change = Mutex<Change?>(nil)

  init(
    source: UInt8, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Change
  ) {
    self.source = source
    self.body = body
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    let made = try await body(connection, logger)
    change.withLock { $0 = made }
  }

  var feed: [FeedSection] {
    guard let made = change.withLock({ $0 }), let bytes = try? JSONEncoder().encode(made) else {
      return []
    }
    return [FeedSection(source: source, bytes: Array(bytes))]
  }
}

/// A write of statements only: nothing for the feed (what no node holds in memory).
struct StatementsWrite: PostgresWrite {
  let body: @Sendable (PostgresConnection, Logger) async throws -> Void

  init(_ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void) {
    self.body = body
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    try await body(connection, logger)
  }

  var feed: [FeedSection] { [] }
}
