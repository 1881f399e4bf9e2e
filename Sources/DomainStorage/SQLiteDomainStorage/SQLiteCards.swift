import Accounts
import Cards
import Foundation
import GRDB
import Store

/// The cards in the embedded store: `cards` (the fields as the card model's JSON, a point in
/// SpatiaLite's `geom` for GIS tools; a share code stored only for cards made before cards-v4,
/// since, the id's), `card_reserved_urls`, and the codes' key in `id_keys`.
public struct SQLiteCards: CardStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, after the accounts'.
  public static let migrations = [cardsV1, cardsV2, cardsV3, cardsV4, cardsV5]

  public func load(_ chunk: ([(card: Card, externalId: String?)]) throws -> Void) throws
    -> StoredCards
  {
    try store.read { db in
      let codes = try Self.codes(db)
      let next = try RowIds.next(after: "cards", db)
      let reserved = Set(try Int64.fetchAll(db, sql: "SELECT account_id FROM card_reserved_urls"))
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT id, owner_id, code, slug, is_primary, fields, created_at, updated_at,
            external_id
          FROM cards
          """)
      var part: [LoadedCard] = []
      part.reserveCapacity(LoadedCard.chunkSize)
      while let row = try rows.next() {
        part.append(
          LoadedCard(
            id: row[0], ownerId: row[1], code: row[2], slug: row[3], isPrimary: row[4],
            fields: row[5], createdAt: Date(timeIntervalSince1970: row[6]),
            updatedAt: Date(timeIntervalSince1970: row[7]), externalId: row[8]))
        if part.count == LoadedCard.chunkSize {
          try chunk(try LoadedCard.parse(part, codes: codes))
          part.removeAll(keepingCapacity: true)
        }
      }
      if !part.isEmpty { try chunk(try LoadedCard.parse(part, codes: codes)) }
      return StoredCards(codes: codes, reserved: reserved, nextId: next)
    }
  }

  public func takeHeld() throws -> (held: Data, codes: IdText)? {
    guard let held = store.takeHeld("cards") else { return nil }
    return (held, try store.read { try Self.codes($0) })
  }

  public func keepHeld(_ make: () -> [UInt8]?) throws {
    try store.keepHeld("cards", make)
  }

  /// `plan` was checked in memory: this store has one writer, this node.
  /// The codes' key, for `cardatlas migrate`: every share code stays what it was.
  public func codesKey() throws -> Data {
    try store.read { try IdKeys.key("codes", $0) }
  }

  public func inserting(
    _ card: Card, externalId: String?, takingReservedURL: Bool, plan: CardPlan
  ) -> any DurableWrite {
    TransactionWrite { db in
      try Self.insert(card, externalId: externalId, db)
      if takingReservedURL { try Self.takeReservedURL(of: card.ownerId, db) }
    }
  }

  public func saving(_ card: Card) -> any DurableWrite {
    TransactionWrite { db in try Self.save(card, db) }
  }

  public func settingPrimary(_ cards: [Card], of owner: Int64) -> any DurableWrite {
    TransactionWrite { db in
      for card in cards {
        try db.execute(
          sql: "UPDATE cards SET is_primary = ? WHERE id = ?", arguments: [card.isPrimary, card.id])
      }
      try Self.takeReservedURL(of: owner, db)
    }
  }

  public func deleting(_ card: Card) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM cards WHERE id = ?", arguments: [card.id])
      if card.isPrimary {
        try db.execute(
          sql: "INSERT OR IGNORE INTO card_reserved_urls (account_id) VALUES (?)",
          arguments: [card.ownerId])
      }
    }
  }

  public func deletingAll(of owner: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM cards WHERE owner_id = ?", arguments: [owner])
      try Self.takeReservedURL(of: owner, db)
    }
  }

  // MARK: Shared with the bulk import

  /// The share codes' key, from `id_keys` (written by cards-v4).
  public static func codes(_ db: Database) throws -> IdText {
    Cards.codes(key: try IdKeys.key("codes", db))
  }

  /// A new card's row, with its point and an import's external id: one statement, not an
  /// insert and updates of the row just written. Its share code is its id's, not stored.
  /// `json`, when given, is `card.fields.json()` written beforehand (off the writer thread).
  static func insert(
    _ card: Card, externalId: String? = nil, json: String? = nil, _ db: Database
  ) throws {
    let columns =
      "id, owner_id, slug, is_primary, fields, created_at, updated_at, external_id"
    var arguments: StatementArguments = [
      card.id, card.ownerId, card.slug, card.isPrimary, json ?? card.fields.json(),
      card.createdAt.timeIntervalSince1970, card.updatedAt.timeIntervalSince1970, externalId,
    ]
    // Cached statements: compiling one each time (and GRDB's authorizer over it) cost more
    // than the insert.
    if let location = card.fields.location {
      arguments += [location.longitude, location.latitude]
      try db.cachedStatement(
        sql:
          "INSERT INTO cards (\(columns), geom) VALUES (?, ?, ?, ?, ?, ?, ?, ?, MakePoint(?, ?, 4326))"
      ).execute(arguments: arguments)
    } else {
      try db.cachedStatement(
        sql: "INSERT INTO cards (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
      ).execute(arguments: arguments)
    }
  }

  static func save(_ card: Card, _ db: Database) throws {
    try db.cachedStatement(
      sql: "UPDATE cards SET fields = ?, is_primary = ?, updated_at = ? WHERE id = ?"
    ).execute(
      arguments: [
        card.fields.json(), card.isPrimary, card.updatedAt.timeIntervalSince1970, card.id,
      ])
    if let location = card.fields.location {
      try db.cachedStatement(sql: "UPDATE cards SET geom = MakePoint(?, ?, 4326) WHERE id = ?")
        .execute(arguments: [location.longitude, location.latitude, card.id])
    } else {
      try db.cachedStatement(sql: "UPDATE cards SET geom = NULL WHERE id = ?")
        .execute(arguments: [card.id])
    }
  }

  static func takeReservedURL(of owner: Int64, _ db: Database) throws {
    try db.cachedStatement(sql: "DELETE FROM card_reserved_urls WHERE account_id = ?")
      .execute(arguments: [owner])
  }
}
