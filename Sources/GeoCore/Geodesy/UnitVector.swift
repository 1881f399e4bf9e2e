#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A point on the unit sphere in Earth-centred Cartesian coordinates. Straight-line distances
/// between unit vectors order points exactly as great-circle distances do, with no trigonometry.
public struct UnitVector: Hashable, Sendable {
  public var x: Double
  public var y: Double
  public var z: Double

  public init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }

  @inlinable
  public init(longitude: Double, latitude: Double) {
    let lon = sinCos(degrees: longitude)
    let lat = sinCos(degrees: latitude)
    self.init(x: lat.cos * lon.cos, y: lat.cos * lon.sin, z: lat.sin)
  }

  @inlinable
  public func chordSquared(to o: UnitVector) -> Double {
    let dx = x - o.x
    let dy = y - o.y
    let dz = z - o.z
    return dx * dx + dy * dy + dz * dz
  }
}
