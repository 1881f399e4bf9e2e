#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Sphere {
  /// Distances from one fixed point, with the work that depends only on it done once. Gives the
  /// same bits as `distance(longitude:latitude:longitude:latitude:)`: the same operations in the
  /// same order, so searches and brute force agree exactly, ties included.
  public struct DistanceFrom: Sendable {
    @usableFromInline let latitudeRadians: Double
    @usableFromInline let longitudeRadians: Double
    @usableFromInline let cosLatitude: Double
    @usableFromInline let radius: Double

    @inlinable
    public init(sphere: Sphere, longitude: Double, latitude: Double) {
      latitudeRadians = latitude * (Double.pi / 180.0)
      longitudeRadians = longitude * (Double.pi / 180.0)
      cosLatitude = cos(latitudeRadians)
      radius = sphere.radius
    }

    @inlinable
    public func distance(longitude: Double, latitude: Double) -> Double {
      let lat2r = latitude * (Double.pi / 180.0)
      let u = sin((lat2r - latitudeRadians) / 2)
      let v = sin((longitude * (Double.pi / 180.0) - longitudeRadians) / 2)
      let a = u * u + cosLatitude * cos(lat2r) * v * v
      return 2.0 * radius * asin(min(1.0, sqrt(a)))
    }
  }

  @inlinable
  public func distances(fromLongitude longitude: Double, latitude: Double) -> DistanceFrom {
    DistanceFrom(sphere: self, longitude: longitude, latitude: latitude)
  }
}
