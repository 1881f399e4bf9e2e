import Foundation
import SpatialIndex

/// The cards on the map: a `GeoIndex` of its own (its own lock, not the keyspace's) holding
/// exactly the cards that may be shown (on the map by their owner's choice, active, located),
/// so no query can return another. Item ids are card ids. Each card's attribute bits carry its
/// filterable values, so a FILTER prunes inside the traversal (`CardFilter`).
final class CardMap: Sendable {
  let index: GeoIndex
  /// Searchers reused across queries, as GEOSEARCH's are.
  let searchers: SearcherPool

  /// The map of `cards`, all visible, in one bulk build.
  init(cards: [Card] = []) {
    // Locations are validated when a card is written: none fails the index's checks.
    index = try! GeoIndex(items: cards.compactMap(Self.item))
    searchers = SearcherPool(index: index)
  }

  /// Shows or hides a card, as its state now says.
  func place(_ card: Card, visible: Bool) {
    guard visible, let item = Self.item(card) else { return remove(card.id) }
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
    guard let id = ItemID(exactly: id) else { return }
    index.remove(id: id)
  }

  func contains(_ id: Int64) -> Bool {
    guard let id = ItemID(exactly: id) else { return false }
    return index.item(id: id) != nil
  }
}
