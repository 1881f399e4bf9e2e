#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Sphere {
  /// The smallest longitude/latitude rectangles that together cover every point within `radius`
  /// metres of the centre: the candidates a box index must return for a radius query.
  ///
  /// Uses the exact bounds of the spherical cap (J. Matuschek, "Finding Points Within a Distance
  /// of a Latitude/Longitude Using Bounding Coordinates"): latitude ± r/R, and a longitude
  /// half-width of asin(sin(r/R) / cos(lat)). The result is one rectangle; two when the cap
  /// crosses the antimeridian, split at ±180; or one spanning all longitudes, reaching the pole's
  /// latitude, when the cap contains a pole (which includes every radius from a quarter of the
  /// circumference up). A radius of 0 gives a degenerate rectangle at the centre. The edges are
  /// exact up to rounding, not padded, so a point exactly on the circle may fall an ulp outside.
  ///
  /// - Precondition: `radius >= 0`; the centre is a valid coordinate.
  public func capBounds(longitude: Double, latitude: Double, radius: Double) -> [LonLatRect] {
    precondition(radius >= 0, "radius must be non-negative, got \(radius)")
    let delta = radius / self.radius
    let deltaDegrees = delta * (180 / Double.pi)
    let minLatitude = latitude - deltaDegrees
    let maxLatitude = latitude + deltaDegrees
    if minLatitude <= -90 || maxLatitude >= 90 {
      return [
        LonLatRect(
          minLongitude: -180, minLatitude: max(-90, minLatitude), maxLongitude: 180,
          maxLatitude: min(90, maxLatitude))
      ]
    }
    // No pole inside means r/R < 90° - |lat|, so the ratio is below 1 but for rounding.
    let ratio = min(1, sin(delta) / cos(latitude * (Double.pi / 180)))
    let halfWidth = asin(ratio) * (180 / Double.pi)
    let west = longitude - halfWidth
    let east = longitude + halfWidth
    if west < -180 {
      return [
        LonLatRect(
          minLongitude: west + 360, minLatitude: minLatitude, maxLongitude: 180,
          maxLatitude: maxLatitude),
        LonLatRect(
          minLongitude: -180, minLatitude: minLatitude, maxLongitude: east,
          maxLatitude: maxLatitude),
      ]
    }
    if east > 180 {
      return [
        LonLatRect(
          minLongitude: west, minLatitude: minLatitude, maxLongitude: 180,
          maxLatitude: maxLatitude),
        LonLatRect(
          minLongitude: -180, minLatitude: minLatitude, maxLongitude: east - 360,
          maxLatitude: maxLatitude),
      ]
    }
    return [
      LonLatRect(
        minLongitude: west, minLatitude: minLatitude, maxLongitude: east, maxLatitude: maxLatitude)
    ]
  }
}
