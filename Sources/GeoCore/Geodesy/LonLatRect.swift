/// A longitude/latitude rectangle in degrees, edges included. It never crosses the antimeridian
/// (`minLongitude <= maxLongitude`); an area that does is described by two rectangles.
public struct LonLatRect: Hashable, Sendable {
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

  /// Every longitude and latitude.
  public static let world = LonLatRect(
    minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90)

  /// The midpoint of both ranges.
  public var center: Coordinate {
    Coordinate(
      longitude: (minLongitude + maxLongitude) / 2, latitude: (minLatitude + maxLatitude) / 2)
  }

  @inlinable
  public func contains(longitude: Double, latitude: Double) -> Bool {
    longitude >= minLongitude && longitude <= maxLongitude && latitude >= minLatitude
      && latitude <= maxLatitude
  }
}
