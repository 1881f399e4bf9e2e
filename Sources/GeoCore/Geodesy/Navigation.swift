#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Sphere {
  /// The compass direction, in degrees 0..<360 clockwise from north, in which the great circle
  /// from the first point to the second sets off. It is 0 for identical points.
  public func initialBearing(
    fromLongitude lon1: Double, latitude lat1: Double, toLongitude lon2: Double,
    latitude lat2: Double
  ) -> Double {
    let phi1 = lat1 * (Double.pi / 180)
    let phi2 = lat2 * (Double.pi / 180)
    let dLambda = (lon2 - lon1) * (Double.pi / 180)
    let y = sin(dLambda) * cos(phi2)
    let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
    let degrees = atan2(y, x) * (180 / Double.pi)
    // Adding 360 to a tiny negative angle can round to 360 itself; the remainder folds it to 0.
    return (degrees + 360).truncatingRemainder(dividingBy: 360)
  }

  /// The point reached by travelling `distance` metres along a great circle that sets off from
  /// the start at `bearing` degrees clockwise from north. The longitude comes back in -180...180
  /// whichever way the path wraps.
  ///
  /// Works with unit vectors rather than the textbook asin formula, which loses half its digits
  /// near the poles (asin is ill-conditioned close to ±1).
  public func destination(
    longitude: Double, latitude: Double, bearing: Double, distance: Double
  ) -> Coordinate {
    let delta = distance / radius
    let theta = bearing * (Double.pi / 180)
    let phi = latitude * (Double.pi / 180)
    let lambda = longitude * (Double.pi / 180)
    let (sinPhi, cosPhi) = (sin(phi), cos(phi))
    let (sinLambda, cosLambda) = (sin(lambda), cos(lambda))
    // The start point and the unit vector of the heading in the tangent plane there.
    let start = (x: cosPhi * cosLambda, y: cosPhi * sinLambda, z: sinPhi)
    let north = (x: -sinPhi * cosLambda, y: -sinPhi * sinLambda, z: cosPhi)
    let east = (x: -sinLambda, y: cosLambda, z: 0.0)
    let (sinTheta, cosTheta) = (sin(theta), cos(theta))
    let (sinDelta, cosDelta) = (sin(delta), cos(delta))
    let x = start.x * cosDelta + (north.x * cosTheta + east.x * sinTheta) * sinDelta
    let y = start.y * cosDelta + (north.y * cosTheta + east.y * sinTheta) * sinDelta
    let z = start.z * cosDelta + (north.z * cosTheta + east.z * sinTheta) * sinDelta
    return Coordinate(
      longitude: atan2(y, x) * (180 / Double.pi),
      latitude: atan2(z, (x * x + y * y).squareRoot()) * (180 / Double.pi))
  }
}
