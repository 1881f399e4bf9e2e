/// A point on the sphere in degrees, longitude first (as in Redis GEO and GeoJSON).
public struct Coordinate: Hashable, Sendable {
  public var longitude: Double
  public var latitude: Double

  /// Makes a coordinate without checking it; use `validated` for input from outside.
  public init(longitude: Double, latitude: Double) {
    self.longitude = longitude
    self.latitude = latitude
  }

  /// Checks that both values are finite and in range: longitude -180...180, latitude -90...90.
  public static func validated(longitude: Double, latitude: Double) throws(CoordinateError)
    -> Coordinate
  {
    guard longitude.isFinite, latitude.isFinite else {
      throw .notFinite(longitude: longitude, latitude: latitude)
    }
    guard (-180.0...180.0).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
    guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
    return Coordinate(longitude: longitude, latitude: latitude)
  }
}

public enum CoordinateError: Error, Equatable, Sendable, CustomStringConvertible {
  case notFinite(longitude: Double, latitude: Double)
  case longitudeOutOfRange(Double)
  case latitudeOutOfRange(Double)

  public var description: String {
    switch self {
    case .notFinite(let lon, let lat):
      return "coordinates must be finite numbers, got longitude \(lon) latitude \(lat)"
    case .longitudeOutOfRange(let lon):
      return "longitude \(lon) is out of range -180..180"
    case .latitudeOutOfRange(let lat):
      return "latitude \(lat) is out of range -90..90"
    }
  }
}
