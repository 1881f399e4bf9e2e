import Cards
import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresStore

/// Moving an embedded store's cards, wallets, notice settings and views into a database
/// (`cardatlas migrate --to`), and checking they arrived. The codes' key moves too, so every share
/// code, and every printed QR code, stays what it was. Written straight into the tables, a
/// chunk of rows per statement (not through the feed): into a database no node serves yet.
public enum CardsTransfer {
  /// What moves: as the embedded store's storage reads it.
  public struct Tables: Sendable {
    public var cards: [(card: Card, externalId: String?)]
    public var stored: StoredCards
    public var codesKey: Data
    public var wallets: [(holder: Int64, card: Int64, addedMicros: Int64)]
    public var notices: [Int64: Notices.Settings]
    public var views: StoredViews

    public init(
      cards: [(card: Card, externalId: String?)], stored: StoredCards, codesKey: Data,
      wallets: [(holder: Int64, card: Int64, addedMicros: Int64)],
      notices: [Int64: Notices.Settings], views: StoredViews
    ) {
      self.cards = cards
      self.stored = stored
      self.codesKey = codesKey
      self.wallets = wallets
      self.notices = notices
      self.views = views
    }
  }

  public struct NotEmpty: Error, CustomStringConvertible {
    public var description: String {
      "the database's cards table already holds data: migrate into an empty database"
    }
  }

  /// Writes `tables` into `store`'s empty card tables, then moves the id sequence past the
  /// highest id the embedded store gave.
  public static func fill(
    _ store: PostgresStore, with tables: Tables, chunk: Int = 1_000, logger: Logger
  ) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    let empty =
      try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM cards)", logger: logger)
      .collect().first?.decode(Bool.self) ?? false
    guard empty else { throw NotEmpty() }
    try await connection.query(
      """
      INSERT INTO id_keys (purpose, key) VALUES ('codes', \(ByteBuffer(bytes: tables.codesKey)))
      ON CONFLICT (purpose) DO UPDATE SET key = excluded.key
      """, logger: logger)
    let codes = tables.stored.codes
    for part in tables.cards.chunks(chunk) {
      // Arrays hold no NULL here: '' and NaN stand for none.
      let location = part.map { $0.card.fields.location }
      try await connection.query(
        """
        INSERT INTO cards (
          id, owner_id, code, slug, is_primary, fields, created_at, updated_at, external_id,
          geom)
        SELECT id, owner, NULLIF(code, ''), slug, is_primary, fields::jsonb, created, updated,
          NULLIF(external, ''),
          CASE WHEN lon = 'NaN' THEN NULL ELSE ST_SetSRID(ST_MakePoint(lon, lat), 4326) END
        FROM unnest(
          \(part.map(\.card.id)), \(part.map(\.card.ownerId)),
          \(part.map { $0.card.code == codes.text($0.card.id) ? "" : $0.card.code }),
          \(part.map(\.card.slug)), \(part.map(\.card.isPrimary)),
          \(part.map { $0.card.fields.json() }), \(part.map(\.card.createdAt)),
          \(part.map(\.card.updatedAt)), \(part.map { $0.externalId ?? "" }),
          \(location.map { $0?.longitude ?? .nan }), \(location.map { $0?.latitude ?? .nan }))
          AS moved (id, owner, code, slug, is_primary, fields, created, updated, external, lon,
            lat)
        """, logger: logger)
    }
    try await connection.query(
      "INSERT INTO card_reserved_urls (account_id) SELECT unnest(\(Array(tables.stored.reserved)))",
      logger: logger)
    for part in tables.wallets.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO wallet_entries (account_id, card_id, added_at)
        SELECT * FROM unnest(\(part.map(\.holder)), \(part.map(\.card)), \(part.map(\.addedMicros)))
        """, logger: logger)
    }
    let settings = tables.notices.sorted { $0.key < $1.key }
    for part in settings.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO notify_settings (account_id, views, wallet_adds)
        SELECT * FROM unnest(
          \(part.map(\.key)), \(part.map(\.value.views)), \(part.map(\.value.walletAdds)))
        """, logger: logger)
    }
    for part in tables.views.views.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO card_views (card_id, day, viewer_id)
        SELECT * FROM unnest(
          \(part.map(\.card)), \(part.map { Int32(clamping: $0.day) }), \(part.map(\.viewer)))
        """, logger: logger)
    }
    for part in tables.views.visits.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO card_visits (card_id, day, visitor)
        SELECT * FROM unnest(
          \(part.map(\.card)), \(part.map { Int32(clamping: $0.day) }),
          \(part.map { ByteBuffer(bytes: $0.visitor) }))
        """, logger: logger)
    }
    try await connection.run(
      "SELECT setval('card_id_blocks', \(tables.stored.nextId), false)", logger: logger)
  }

  /// What the database's card tables hold, summed up as `CardsSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> CardsSummary
  {
    try await store.snapshot { connection, _ in
      let (rows, stored) = try await PostgresCards.read(on: connection, logger: logger)
      let cards = try LoadedCard.parse(rows, codes: stored.codes)
      var wallets: [(holder: Int64, card: Int64, addedMicros: Int64)] = []
      for try await entry in try await connection.query(
        "SELECT account_id, card_id, added_at FROM wallet_entries", logger: logger
      ).decode((Int64, Int64, Int64).self) {
        wallets.append(entry)
      }
      var notices: [Int64: Notices.Settings] = [:]
      for try await (account, views, walletAdds) in try await connection.query(
        "SELECT account_id, views, wallet_adds FROM notify_settings", logger: logger
      ).decode((Int64, Bool, Bool).self) {
        notices[account] = Notices.Settings(views: views, walletAdds: walletAdds)
      }
      var views = StoredViews(views: [], visits: [])
      for try await (card, day, viewer) in try await connection.query(
        "SELECT card_id, day, viewer_id FROM card_views", logger: logger
      ).decode((Int64, Int32, Int64).self) {
        views.views.append((card, Int(day), viewer))
      }
      for try await (card, day, visitor) in try await connection.query(
        "SELECT card_id, day, visitor FROM card_visits", logger: logger
      ).decode((Int64, Int32, ByteBuffer).self) {
        views.visits.append((card, Int(day), Data(buffer: visitor)))
      }
      return CardsSummary(
        Tables(
          cards: cards, stored: stored, codesKey: Data(), wallets: wallets, notices: notices,
          views: views))
    }
  }
}

/// Counts and an order-free checksum of the cards (every field, the share code and external id
/// included), the reserved URLs, wallet entries, notice settings and views.
public struct CardsSummary: Equatable, Sendable, CustomStringConvertible {
  public let cards: Int
  public let walletEntries: Int
  public let settings: Int
  public let views: Int
  public let checksum: UInt64

  public init(_ tables: CardsTransfer.Tables) {
    cards = tables.cards.count
    walletEntries = tables.wallets.count
    settings = tables.notices.count
    views = tables.views.views.count + tables.views.visits.count
    var sum = TransferChecksumSum()
    for (card, externalId) in tables.cards {
      sum.add {
        $0.add("card")
        $0.add(card.id)
        $0.add(card.ownerId)
        $0.add(card.code)
        $0.add(card.slug)
        $0.add(card.isPrimary ? 1 : 0)
        // The model's own JSON (sorted keys): the same fields read from either store.
        $0.add(card.fields.json())
        $0.add(Int64(card.createdAt.timeIntervalSince1970.rounded()))
        $0.add(Int64(card.updatedAt.timeIntervalSince1970.rounded()))
        $0.add(externalId ?? "-")
      }
    }
    for account in tables.stored.reserved {
      sum.add {
        $0.add("reserved")
        $0.add(account)
      }
    }
    for entry in tables.wallets {
      sum.add {
        $0.add("wallet")
        $0.add(entry.holder)
        $0.add(entry.card)
        $0.add(entry.addedMicros)
      }
    }
    for (account, settings) in tables.notices {
      sum.add {
        $0.add("notices")
        $0.add(account)
        $0.add((settings.views ? 1 : 0) + (settings.walletAdds ? 2 : 0))
      }
    }
    for view in tables.views.views {
      sum.add {
        $0.add("view")
        $0.add(view.card)
        $0.add(Int64(view.day))
        $0.add(view.viewer)
      }
    }
    for visit in tables.views.visits {
      sum.add {
        $0.add("visit")
        $0.add(visit.card)
        $0.add(Int64(visit.day))
        $0.add(visit.visitor.base64EncodedString())
      }
    }
    checksum = sum.value
  }

  public var description: String {
    "\(cards) cards (\(walletEntries) wallet entries, \(settings) notice settings, "
      + "\(views) views), checksum " + String(checksum, radix: 16)
  }
}
