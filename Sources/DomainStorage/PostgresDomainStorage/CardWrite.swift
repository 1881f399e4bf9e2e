import Cards
import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// One `CardStorage` write to cards that exist, in PostgreSQL: its statements, and its change
/// in the feed for every node. Run in a savepoint of its own: a change another node's write
/// makes break a unique rule fails only its command. New cards are `CardInserts`.
struct CardWrite: PostgresWrite {
  let change: CardChange
  /// The card a `.saved` change writes.
  private let card: Card?

  init(_ change: CardChange, card: Card? = nil) {
    self.change = change
    self.card = card
  }

  var feed: [FeedSection] { [Self.section(change)] }

  /// A change's section of the feed.
  static func section(_ change: CardChange) -> FeedSection {
    // Encoding these plain values cannot fail.
    let bytes = (try? JSONEncoder().encode(change)) ?? Data()
    return FeedSection(source: PostgresCards.source, bytes: Array(bytes))
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    switch change {
    case .saved(let stored, _, _):
      let location = card?.fields.location
      let (longitude, latitude) = (location?.longitude, location?.latitude)
      try await connection.query(
        """
        UPDATE cards SET fields = \(stored.fields)::jsonb, is_primary = \(stored.isPrimary),
          updated_at = \(stored.updatedAt),
          geom = ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)
        WHERE id = \(stored.id)
        """, logger: logger)
    case .primary(let cards, let owner):
      // The one that stops being primary first: the database allows one primary card.
      for card in cards.sorted(by: { !$0.isPrimary && $1.isPrimary }) {
        try await connection.query(
          "UPDATE cards SET is_primary = \(card.isPrimary) WHERE id = \(card.id)", logger: logger)
      }
      try await takeReservedURL(of: owner, connection, logger)
    case .deleted(let card):
      try await connection.query("DELETE FROM cards WHERE id = \(card.id)", logger: logger)
      if card.isPrimary {
        try await connection.query(
          """
          INSERT INTO card_reserved_urls (account_id) VALUES (\(card.ownerId))
          ON CONFLICT DO NOTHING
          """, logger: logger)
      }
    case .deletedAll(let owner):
      try await connection.query("DELETE FROM cards WHERE owner_id = \(owner)", logger: logger)
      try await takeReservedURL(of: owner, connection, logger)
    }
  }

  private func takeReservedURL(
    of owner: Int64, _ connection: PostgresConnection, _ logger: Logger
  ) async throws {
    try await connection.query(
      "DELETE FROM card_reserved_urls WHERE account_id = \(owner)", logger: logger)
  }
}
