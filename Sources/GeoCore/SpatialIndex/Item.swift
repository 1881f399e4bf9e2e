import Geodesy

/// The caller's handle for an item. Ids are small dense integers (the store allocates them), so
/// the index maps id to slot with a plain array.
public typealias ItemID = UInt32

/// One indexed thing: a card, a photo pin, a person. Coordinates are degrees, longitude first.
public struct Item: Hashable, Sendable {
  public var id: ItemID
  public var longitude: Double
  public var latitude: Double
  /// The radius of the item's own circle in metres (a photo pin opens only inside it); 0 for a
  /// plain point. Kept to Float precision: 7 significant digits.
  public var radius: Float
  /// Bits the caller filters on (visible, a category...); see `Filter`.
  public var attributes: UInt32

  public init(
    id: ItemID, longitude: Double, latitude: Double, radius: Float = 0, attributes: UInt32 = 0
  ) {
    self.id = id
    self.longitude = longitude
    self.latitude = latitude
    self.radius = radius
    self.attributes = attributes
  }

  /// Checks the coordinates and radius: no NaN or out-of-range value may enter the index.
  public func validate() throws(ItemError) {
    do {
      _ = try Coordinate.validated(longitude: longitude, latitude: latitude)
    } catch {
      throw .coordinate(error)
    }
    guard radius.isFinite, radius >= 0 else { throw .radius(radius) }
  }
}

public enum ItemError: Error, Equatable, Sendable, CustomStringConvertible {
  case coordinate(CoordinateError)
  case radius(Float)

  public var description: String {
    switch self {
    case .coordinate(let e): return e.description
    case .radius(let r): return "radius \(r) must be a finite number of metres, 0 or more"
    }
  }
}

/// Selects items by their attribute bits: an item matches when `attributes & mask == value`.
/// Evaluated inside every traversal; nodes whose aggregated bits rule out a match are skipped.
public struct Filter: Hashable, Sendable {
  public var mask: UInt32
  public var value: UInt32

  public init(mask: UInt32, value: UInt32) {
    self.mask = mask
    self.value = value & mask
  }

  /// Matches every item.
  public static let all = Filter(mask: 0, value: 0)

  /// Items that have every bit of `bits` set.
  public static func has(_ bits: UInt32) -> Filter { Filter(mask: bits, value: bits) }

  @inlinable
  public func matches(_ attributes: UInt32) -> Bool { attributes & mask == value }

  /// Whether some item of a group whose attributes OR to `any` and AND to `every` may match.
  @inlinable
  public func mayMatch(any: UInt32, every: UInt32) -> Bool {
    (value & ~any) == 0 && (~value & mask & every) == 0
  }

  /// Whether this filter passes everything, so traversals can skip reading attribute bits.
  @inlinable
  public var isAll: Bool { mask == 0 }

  /// Whether every item of a group whose attributes OR to `any` and AND to `every` matches.
  @inlinable
  public func matchesAll(any: UInt32, every: UInt32) -> Bool {
    (every & mask) == value && (any & mask & ~value) == 0
  }
}

/// A query answer: the item, where it is, and its great-circle distance in metres from the query
/// point (0 for box queries).
public struct Hit: Hashable, Sendable {
  public var id: ItemID
  public var longitude: Double
  public var latitude: Double
  public var distance: Double

  public init(id: ItemID, longitude: Double, latitude: Double, distance: Double) {
    self.id = id
    self.longitude = longitude
    self.latitude = latitude
    self.distance = distance
  }
}

/// An item found by `GeoSearcher.nearestChords`: placed by its squared chord on the unit sphere
/// from the centre (monotonic in the distance), not measured in metres.
public struct ChordHit: Hashable, Sendable, BitwiseCopyable {
  public var id: ItemID
  public var longitude: Double
  public var latitude: Double
  public var chordSquared: Double

  public init(id: ItemID, longitude: Double, latitude: Double, chordSquared: Double) {
    self.id = id
    self.longitude = longitude
    self.latitude = latitude
    self.chordSquared = chordSquared
  }
}

/// A map viewport in degrees. `minLongitude > maxLongitude` means it crosses the antimeridian.
public struct GeoBox: Hashable, Sendable {
  public var minLongitude: Double
  public var minLatitude: Double
  public var maxLongitude: Double
  public var maxLatitude: Double

  public init(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double)
  {
    self.minLongitude = minLongitude
    self.minLatitude = minLatitude
    self.maxLongitude = maxLongitude
    self.maxLatitude = maxLatitude
  }

  public var crossesAntimeridian: Bool { minLongitude > maxLongitude }

  @inlinable
  public func contains(longitude: Double, latitude: Double) -> Bool {
    guard latitude >= minLatitude, latitude <= maxLatitude else { return false }
    if minLongitude <= maxLongitude {
      return longitude >= minLongitude && longitude <= maxLongitude
    }
    return longitude >= minLongitude || longitude <= maxLongitude
  }
}
