import Cards
import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// New cards as one PostgreSQL write: a group commit's run of CARD.CREATEs (or imported rows)
/// becomes one call of `cardatlas_add_cards`, one round trip for them all. The database checks
/// each against its owner's plan and the unique slugs, external ids and one primary card,
/// which another node may have taken meanwhile; a card refused writes nothing, and only its
/// command fails (`PostgresWrite.mayBeRefused`), with no savepoint.
struct CardInserts: PostgresWrite {
  struct New: Sendable {
    let change: CardChange
    let card: Card
    let externalId: String?
    let tookReservedURL: Bool
    let plan: CardPlan
  }

  private(set) var cards: [New]

  init(_ card: Card, externalId: String?, tookReservedURL: Bool, plan: CardPlan) {
    let stored = StoredCard(card)
    cards = [
      New(
        change: .saved(stored, externalId: externalId, tookReservedURL: tookReservedURL),
        card: card, externalId: externalId, tookReservedURL: tookReservedURL, plan: plan)
    ]
  }

  var needsSavepoint: Bool { false }
  var mayBeRefused: Bool { true }

  mutating func absorb(_ next: any PostgresWrite) -> Bool {
    guard let next = next as? CardInserts else { return false }
    cards += next.cards
    return true
  }

  var feed: [FeedSection] { cards.map { CardWrite.section($0.change) } }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    let applied = try await applyRefusing(on: connection, logger: logger)
    if let refused = applied.refused.values.first { throw refused }
  }

  func applyRefusing(on connection: PostgresConnection, logger: Logger) async throws
    -> AppliedWrite
  {
    let stored = cards.map { StoredCard($0.card) }
    let locations = cards.map { $0.card.fields.location }
    // Arrays carry no NULLs here: a missing external id or location travels as a flag or NaN.
    let rows = try await connection.query(
      """
      SELECT refused_id, over_limit FROM cardatlas_add_cards(
        \(stored.map(\.id)), \(stored.map(\.ownerId)), \(cards.map { Int32(clamping: $0.plan.cards) }),
        \(stored.map(\.slug)), \(stored.map(\.isPrimary)), \(stored.map(\.fields)),
        \(stored.map(\.createdAt)), \(stored.map(\.updatedAt)),
        \(cards.map { $0.externalId != nil }), \(cards.map { $0.externalId ?? "" }),
        \(locations.map { $0?.longitude ?? .nan }), \(locations.map { $0?.latitude ?? .nan }),
        \(cards.map(\.tookReservedURL)))
      """, logger: logger)
    var refused: [Int64: Bool] = [:]
    for try await (id, overLimit) in rows.decode((Int64, Bool).self) { refused[id] = overLimit }
    var byPlace: [Int: any Error] = [:]
    var feed: [FeedSection] = []
    for (place, new) in cards.enumerated() {
      if let overLimit = refused[new.card.id] {
        byPlace[place] = CardRaced(overLimit: overLimit)
      } else {
        feed.append(CardWrite.section(new.change))
      }
    }
    return AppliedWrite(refused: byPlace, feed: feed)
  }
}
