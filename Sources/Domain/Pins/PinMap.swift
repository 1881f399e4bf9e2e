import Cards
import DomainSupport
import SpatialIndex
import Synchronization

/// The pins on the map: a `GeoIndex` of their own, each pin an item whose radius is its viewing
/// circle's (so the index's circles query answers `PIN.AT`), and beside it each pin's JSON,
/// rendered as the pin is placed or its score changes: a hit copies those bytes into the reply.
final class PinMap: Sendable {
  let index: GeoIndex
  let searchers: SearcherPool
  private let summaries: Mutex<IdTable<[UInt8]>>

  init(placed: [(pin: Pin, summary: [UInt8])]) {
    // Coordinates and radii are validated when a pin is made: none fails the index's checks.
    index = try! GeoIndex(items: placed.map { Self.item($0.pin) })
    searchers = SearcherPool(index: index)
    var table = IdTable<[UInt8]>()
    for (pin, summary) in placed { table[pin.id] = summary }
    summaries = Mutex(table)
  }

  func place(_ pin: Pin, summary: [UInt8]) {
    // The summary first: a query that finds the pin in the index finds its summary.
    summaries.withLock { $0[pin.id] = summary }
    _ = try? index.upsert(Self.item(pin))
  }

  /// Only the summary (a vote changed the score): the circle stays where it is.
  func update(_ id: Int64, summary: [UInt8]) {
    summaries.withLock { if $0[id] != nil { $0[id] = summary } }
  }

  func remove(_ id: Int64) {
    if let item = ItemID(exactly: id) { index.remove(id: item) }
    summaries.withLock { $0[id] = nil }
  }

  private static func item(_ pin: Pin) -> Item {
    Item(
      id: ItemID(pin.id), longitude: pin.longitude, latitude: pin.latitude,
      radius: Float(pin.radius))
  }

  /// The index's hits with their summaries, under one lock, leaving out any pin deleted
  /// meanwhile.
  func pinHits(_ hits: [Hit]) -> [PinHit] {
    summaries.withLock { table in
      hits.compactMap { hit in
        table[Int64(hit.id)].map {
          PinHit(
            id: Int64(hit.id), summary: $0, longitude: hit.longitude, latitude: hit.latitude,
            distance: hit.distance)
        }
      }
    }
  }
}

/// A pin found: its id, its JSON, where it is, and its distance in metres from the query's
/// point (0 for bounds).
public struct PinHit: Sendable {
  public let id: Int64
  public let summary: [UInt8]
  public let longitude: Double
  public let latitude: Double
  public let distance: Double
}
