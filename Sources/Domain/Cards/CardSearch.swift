import Foundation
import SpatialIndex

/// A map query (`CARD.SEARCH`): from a point or a card, by radius, box, nearest k or a
/// viewport's bounds, in distance order (ties by id), filtered, and paged by a cursor.
public struct CardSearch: Sendable {
  public enum Center: Sendable {
    case point(longitude: Double, latitude: Double)
    case card(Int64)
  }

  public enum Shape: Sendable {
    /// Metres.
    case radius(Double)
    /// Width and height in metres, centred on the centre (Redis's BYBOX).
    case box(width: Double, height: Double)
    case nearest(Int)
    /// A viewport: no centre, ordered by id.
    case bounds(GeoBox)
  }

  public var center: Center?
  public var shape: Shape
  /// At most this many hits (per page, with a cursor).
  public var count: Int?
  public var descending = false
  public var filters: [CardFilter] = []
  /// Cards left out, inside the search so that COUNT and cursors count only what is shown
  /// (`NEW`: the caller's own cards and those in its wallet, `Wallets.seen(by:)`).
  public var excluded: Set<Int64> = []
  /// Page after this position; nil for the first page.
  public var after: CardCursor?

  public init(center: Center?, shape: Shape) {
    self.center = center
    self.shape = shape
  }
}

/// A card found: its id, its summary, where it is, and its distance in metres from the centre
/// (0 for bounds).
public struct CardHit: Sendable {
  public let id: Int64
  /// What a pin shows, as JSON text (`CardSummary`), ready to be copied into a reply.
  public let summary: [UInt8]
  public let longitude: Double
  public let latitude: Double
  public let distance: Double

  init(id: Int64, summary: [UInt8], longitude: Double, latitude: Double, distance: Double) {
    self.id = id
    self.summary = summary
    self.longitude = longitude
    self.latitude = latitude
    self.distance = distance
  }

  /// The hit with a copy of its summary.
  init(_ view: CardHitView) {
    self.init(
      id: view.id, summary: Array(view.summary), longitude: view.longitude,
      latitude: view.latitude, distance: view.distance)
  }
}

/// A card found, as the map holds it: its summary is the map's own bytes, valid only in the
/// closure the hit is given to (`Cards.search(_:_:)`), so that a reply copies them once.
public struct CardHitView {
  public let id: Int64
  /// The summary's JSON text (`CardSummary`).
  public let summary: UnsafeRawBufferPointer
  public let longitude: Double
  public let latitude: Double
  public let distance: Double
}

/// Where a page ended: the last hit's distance and id. Hits are ordered by (distance, id), so
/// the next page starts strictly after it: no card is repeated or skipped while the results
/// stay the same.
public struct CardCursor: Sendable, Equatable {
  public let distance: Double
  public let id: Int64

  public init(distance: Double, id: Int64) {
    self.distance = distance
    self.id = id
  }

  /// Opaque text: the distance's bits and the id, in hex.
  public var text: String { String(distance.bitPattern, radix: 16) + "-" + String(id, radix: 16) }

  public init?(text: String) {
    let parts = text.split(separator: "-")
    guard parts.count == 2, let bits = UInt64(parts[0], radix: 16),
      let id = Int64(parts[1], radix: 16)
    else { return nil }
    distance = Double(bitPattern: bits)
    guard distance.isFinite, distance >= 0 else { return nil }
    self.id = id
  }
}
