#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Web Mercator (EPSG:3857) in normalised units: x and y run from 0 to 1 across the world,
/// y downwards from the northern edge, as map tiles number them.
public enum WebMercator {
  /// The latitude at which the square world map ends (arctan(sinh(π)) in degrees).
  public static let maximumLatitude = 85.051_128_779_806_59

  /// Longitude -180...180 to x 0...1.
  @inlinable
  public static func x(longitude: Double) -> Double { longitude / 360 + 0.5 }

  /// Latitude to y, clamped to 0...1 beyond ±`maximumLatitude`.
  @inlinable
  public static func y(latitude: Double) -> Double {
    let s = sin(latitude * (Double.pi / 180))
    let y = 0.5 - 0.25 * log((1 + s) / (1 - s)) / Double.pi
    return y < 0 ? 0 : (y > 1 ? 1 : y)
  }

  @inlinable
  public static func longitude(x: Double) -> Double { (x - 0.5) * 360 }

  @inlinable
  public static func latitude(y: Double) -> Double {
    let angle = (180 - y * 360) * (Double.pi / 180)
    return 360 * atan(exp(angle)) / Double.pi - 90
  }
}
