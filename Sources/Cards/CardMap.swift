import Foundation
import SpatialIndex
import Synchronization

/// The cards on the map: a `GeoIndex` of its own (its own lock, not the keyspace's) holding
/// exactly the cards that may be shown (on the map by their owner's choice, active, located),
/// so no query can return another. Item ids are card ids. Each card's attribute bits carry its
/// filterable values, so a FILTER prunes inside the traversal (`CardFilter`).
///
/// Beside the index, each card's summary (`CardSummary`), written as the card is placed: a hit
/// reads that one small record, never the card (some hundreds of bytes, memory bound at a
/// million cards) nor its owner (for the share URL).
final class CardMap: Sendable {
  let index: GeoIndex
  /// Searchers reused across queries, as GEOSEARCH's are.
  let searchers: SearcherPool
  private let summaries: Mutex<CardTable<[UInt8]>>

  /// The map of `placed` cards, all visible, with their summaries, in one bulk build.
  init(placed: [(card: Card, summary: [UInt8])]) {
    // Locations are validated when a card is written: none fails the index's checks.
    index = try! GeoIndex(items: placed.compactMap { Self.item($0.card) })
    searchers = SearcherPool(index: index)
    var table = CardTable<[UInt8]>()
    for (card, summary) in placed { table[card.id] = summary }
    summaries = Mutex(table)
  }

  /// Shows the card with its summary, or hides it (`summary` nil).
  func place(_ card: Card, summary: [UInt8]?) {
    guard let summary, let item = Self.item(card) else { return remove(card.id) }
    // The summary first: a query that finds the card in the index finds its summary.
    summaries.withLock { $0[card.id] = summary }
    _ = try? index.upsert(item)
  }

  private static func item(_ card: Card) -> Item? {
    guard let location = card.fields.location, let id = ItemID(exactly: card.id) else {
      return nil
    }
    return Item(
      id: id, longitude: location.longitude, latitude: location.latitude, radius: 0,
      attributes: CardFilter.attributes(of: card.fields))
  }

  func remove(_ id: Int64) {
    guard let item = ItemID(exactly: id) else { return }
    index.remove(id: item)
    summaries.withLock { $0[id] = nil }
  }

  func contains(_ id: Int64) -> Bool {
    guard let id = ItemID(exactly: id) else { return false }
    return index.item(id: id) != nil
  }

  /// The index's hits with their summaries, under one lock, leaving out any card hidden
  /// meanwhile.
  func cardHits(_ hits: [Hit]) -> [CardHit] {
    summaries.withLock { table in
      hits.compactMap { hit in
        table[Int64(hit.id)].map {
          CardHit(
            id: Int64(hit.id), summary: $0, longitude: hit.longitude, latitude: hit.latitude,
            distance: hit.distance)
        }
      }
    }
  }
}
