#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Great-circle maths on a sphere of a given radius.
///
/// Distances use the haversine formula, written exactly as Redis's `geohashGetDistance` so that
/// the Redis-compatible path (`Sphere.redis`) reproduces Redis's distances bit for bit.
public struct Sphere: Hashable, Sendable {
  /// Radius in metres.
  public let radius: Double

  public init(radius: Double) { self.radius = radius }

  /// The IUGG mean Earth radius, 6,371,008.8 m: the best single sphere for the whole Earth.
  public static let earth = Sphere(radius: 6_371_008.8)
  /// The radius Redis's GEO commands use (`EARTH_RADIUS_IN_METERS` in geohash_helper.c).
  public static let redis = Sphere(radius: 6_372_797.560856)

  /// Half the circumference: no two points are farther apart than this.
  public var maximumDistance: Double { Double.pi * radius }

  /// Great-circle distance in metres between two points given in degrees.
  @inlinable
  public func distance(
    longitude lon1: Double, latitude lat1: Double, longitude lon2: Double, latitude lat2: Double
  ) -> Double {
    let lat1r = lat1 * (Double.pi / 180.0)
    let lat2r = lat2 * (Double.pi / 180.0)
    let u = sin((lat2r - lat1r) / 2)
    let v = sin((lon2 * (Double.pi / 180.0) - lon1 * (Double.pi / 180.0)) / 2)
    let a = u * u + cos(lat1r) * cos(lat2r) * v * v
    return 2.0 * radius * asin(min(1.0, sqrt(a)))
  }

  @inlinable
  public func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
    distance(
      longitude: a.longitude, latitude: a.latitude, longitude: b.longitude, latitude: b.latitude)
  }

  /// The squared straight-line (chord) distance, on the unit sphere, of two points `d` metres
  /// apart along the surface. Monotonic in `d`, so it orders and bounds distances without
  /// trigonometry in hot loops. Distances beyond half the circumference map to 4.
  @inlinable
  public func chordSquared(forDistance d: Double) -> Double {
    if d >= maximumDistance { return 4 }
    if d <= 0 { return 0 }
    let s = 2 * sin(d / (2 * radius))
    return s * s
  }

  /// The surface distance in metres for a squared unit-sphere chord length.
  @inlinable
  public func distance(fromChordSquared c2: Double) -> Double {
    2 * radius * asin(min(1, sqrt(max(0, c2)) / 2))
  }
}

/// `Sphere.chordSquared(forDistance:)` for the last distance asked, kept for the next ask:
/// clients search with a handful of radii, and the sine is a good part of a small search's
/// fixed cost.
public struct RememberedChord: Sendable {
  private var distance = Double.nan
  private var chordSquared = 0.0

  public init() {}

  public mutating func chordSquared(forDistance d: Double, on sphere: Sphere) -> Double {
    // NaN never equals itself, so the first ask always computes (and so does a NaN distance).
    if d != distance {
      distance = d
      chordSquared = sphere.chordSquared(forDistance: d)
    }
    return chordSquared
  }
}
