import DomainSupport
import Foundation
import IndexIntrinsics
import SpatialIndex

/// The cards on the map: a `GeoIndex` of its own (its own lock, not the keyspace's) holding
/// exactly the cards that may be shown (on the map by their owner's choice, active, located),
/// so no query can return another. Item ids are card ids. Each card's attribute bits carry its
/// filterable values, so a FILTER prunes inside the traversal (`CardFilter`).
///
/// Beside the index, each card's summary (`CardSummary`), written as the card is placed: a hit
/// reads that one small record, never the card (memory bound at a million cards) nor its owner
/// (for the share URL). The summaries lie end to end in a byte arena (an array each cost a
/// header and an allocation beyond its bytes), and a search's reply is written from them under
/// a readers' lock, as GEOSEARCH writes member names (`withHits`).
final class CardMap: Sendable {
  let index: GeoIndex
  /// Searchers reused across queries, as GEOSEARCH's are.
  let searchers: SearcherPool
  private let summaries: Summaries

  /// The summaries and their lock, the index's kind (`SlottedRWLock`): searches read side by
  /// side while their replies are written; placing a card writes. Under a mutex the event loops
  /// waited for each other's replies (CARD.SEARCH over the wire at 0.31× GEOSEARCH, not 0.47×
  /// with the page copied out and the reply written after).
  private final class Summaries: @unchecked Sendable {
    private let lock = SlottedRWLock()
    private var table: Table

    init(_ table: Table) { self.table = table }

    func read<R>(_ body: (Table) -> R) -> R { lock.withReadLock { body(table) } }

    func write(_ body: (inout Table) -> Void) { lock.withWriteLock { body(&table) } }
  }

  private struct Table {
    var arena = ByteArena()
    var slots = IdTable<ByteArena.Slot>()

    mutating func set(_ id: Int64, _ summary: [UInt8]) {
      slots[id] = slots[id].map { arena.replace($0, with: summary) } ?? arena.store(summary)
    }

    mutating func remove(_ id: Int64) {
      guard let slot = slots[id] else { return }
      arena.release(slot)
      slots[id] = nil
    }
  }

  /// The map of `placed` cards (`item(_:)`), all visible, with their summaries, in one bulk
  /// build.
  init(placed: [(item: Item, summary: [UInt8])]) {
    // Locations are validated when a card is written: none fails the index's checks.
    index = try! GeoIndex(items: placed.map(\.item))
    searchers = SearcherPool(index: index)
    var table = Table()
    for (item, summary) in placed { table.set(Int64(item.id), summary) }
    summaries = Summaries(table)
  }

  /// Every card on the map with its summary (`CardsHeldFile`).
  func forEachEntry(_ body: (Item, UnsafeRawBufferPointer) -> Void) {
    let items = index.allItems().sorted { $0.id < $1.id }
    summaries.read { table in
      table.arena.withStorage { storage in
        for item in items {
          if let slot = table.slots[Int64(item.id)] { body(item, storage.bytes(slot)) }
        }
      }
    }
  }

  /// Shows the card with its summary, or hides it (`summary` nil).
  func place(_ card: Card, summary: [UInt8]?) {
    guard let summary, let item = Self.item(card) else { return remove(card.id) }
    // The summary first: a query that finds the card in the index finds its summary.
    summaries.write { $0.set(card.id, summary) }
    _ = try? index.upsert(item)
  }

  /// The card's entry in the index, if it has a location.
  static func item(_ card: Card) -> Item? {
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
    summaries.write { $0.remove(id) }
  }

  func contains(_ id: Int64) -> Bool {
    guard let id = ItemID(exactly: id) else { return false }
    return index.item(id: id) != nil
  }

  /// `body` given the index's hits with their summaries as held, under the read lock, leaving
  /// out any card hidden meanwhile.
  ///
  /// The summaries lie in the order the cards were placed, not by place: each hit's slot and
  /// summary is a cache miss of its own at a million cards (nearly all of the reply's copying
  /// was waiting on them). All of the page's lines are asked for before any is read, so the
  /// misses overlap instead of following one another.
  func withHits<R>(_ hits: [Hit], _ body: ([CardHitView]) -> R) -> R {
    summaries.read { table in
      for hit in hits { table.slots.prefetch(Int64(hit.id)) }
      return table.arena.withStorage { storage in
        let found = hits.compactMap { hit in
          table.slots[Int64(hit.id)].map {
            CardHitView(
              id: Int64(hit.id), summary: storage.bytes($0), longitude: hit.longitude,
              latitude: hit.latitude, distance: hit.distance)
          }
        }
        for hit in found { Self.prefetch(hit.summary) }
        return body(found)
      }
    }
  }

  /// Starts loading every cache line of `bytes`.
  private static func prefetch(_ bytes: UnsafeRawBufferPointer) {
    guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
    // From the line holding the first byte to the one holding the last.
    var line = UInt(bitPattern: start) & ~63
    let last = UInt(bitPattern: start + bytes.count - 1)
    while line <= last {
      cprefetch(UnsafeRawPointer(bitPattern: line))
      line += 64
    }
  }
}
