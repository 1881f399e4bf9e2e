#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Sphere {
  /// The great-circle distance in metres from `point` to the nearest point of the shorter arc
  /// from `a` to `b` (a move's path). For `a` and `b` the same or antipodal (no one shorter
  /// arc), the distance to the nearer end.
  public func distance(from point: Coordinate, toArcFrom a: Coordinate, to b: Coordinate)
    -> Double
  {
    let u = UnitVector(longitude: a.longitude, latitude: a.latitude)
    let v = UnitVector(longitude: b.longitude, latitude: b.latitude)
    let p = UnitVector(longitude: point.longitude, latitude: point.latitude)
    let ends = min(distance(point, a), distance(point, b))
    // The arc's pole n: p lies beside the arc when it is between the planes through n and each
    // end; then its distance is that to the great circle.
    var n = u.cross(v)
    let length = n.norm
    guard length > 1e-15 else { return ends }
    n = n.scaled(1 / length)
    guard n.cross(u).dot(p) >= 0, v.cross(n).dot(p) >= 0 else { return ends }
    let off = min(1, abs(n.dot(p)))
    return min(ends, asin(off) * radius)
  }
}

extension UnitVector {
  @inlinable
  public func cross(_ o: UnitVector) -> UnitVector {
    UnitVector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
  }

  @inlinable
  public func dot(_ o: UnitVector) -> Double { x * o.x + y * o.y + z * o.z }

  @inlinable
  public var norm: Double { (x * x + y * y + z * z).squareRoot() }

  @inlinable
  public func scaled(_ k: Double) -> UnitVector { UnitVector(x: x * k, y: y * k, z: z * k) }
}

extension Sphere {
  /// The point halfway along the shorter arc from `a` to `b` (`a` itself for antipodes).
  public func midpoint(_ a: Coordinate, _ b: Coordinate) -> Coordinate {
    let u = UnitVector(longitude: a.longitude, latitude: a.latitude)
    let v = UnitVector(longitude: b.longitude, latitude: b.latitude)
    let sum = UnitVector(x: u.x + v.x, y: u.y + v.y, z: u.z + v.z)
    let length = sum.norm
    guard length > 1e-12 else { return a }
    let m = sum.scaled(1 / length)
    return Coordinate(
      longitude: atan2(m.y, m.x) * (180 / Double.pi),
      latitude: asin(max(-1, min(1, m.z))) * (180 / Double.pi))
  }
}
