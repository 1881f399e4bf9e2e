import Fences
import Foundation
import Geodesy

/// Random fences described so that a brute-force oracle can answer for them without the code
/// under test: star-shaped polygons around a known centre (with a star-shaped hole), rings
/// round a pole as a latitude by longitude, boxes as ranges, circles by distance.
enum OracleFence {
  case circle(center: Coordinate, radius: Double)
  /// Vertices at `angles` (radians, increasing) and `radii` (degrees) around `center`, in
  /// longitude/latitude degrees; a hole the same way, or none.
  case star(center: Coordinate, angles: [Double], radii: [Double], hole: [Double]?)
  /// A ring round the pole (north when `north`), its latitude at increasing longitudes.
  case polar(longitudes: [Double], latitudes: [Double], north: Bool)
  case box(west: Double, south: Double, east: Double, north: Double)

  static let sphere = Sphere.earth

  /// The same fence for the book.
  var shape: FenceShape {
    switch self {
    case .circle(let center, let radius): return FenceShape.circle(center, radius: radius)!
    case .star(let center, let angles, let radii, let hole):
      var rings = [Self.ring(center, angles, radii)]
      if let hole { rings.append(Self.ring(center, angles, hole)) }
      return FenceShape.polygons([rings])!
    case .polar(let longitudes, let latitudes, _):
      return FenceShape.polygons([
        [zip(longitudes, latitudes).map { Coordinate(longitude: $0, latitude: $1) }]
      ])!
    case .box(let west, let south, let east, let north):
      return FenceShape.box(west: west, south: south, east: east, north: north)!
    }
  }

  private static func ring(_ center: Coordinate, _ angles: [Double], _ radii: [Double])
    -> [Coordinate]
  {
    zip(angles, radii).map { angle, r in
      Coordinate(
        longitude: wrapped(center.longitude + r * cos(angle)),
        latitude: center.latitude + r * sin(angle))
    }
  }

  static func wrapped(_ longitude: Double) -> Double {
    var x = longitude
    while x > 180 { x -= 360 }
    while x < -180 { x += 360 }
    return x
  }

  func contains(_ p: Coordinate) -> Bool {
    switch self {
    case .circle(let center, let radius):
      return Self.sphere.distance(center, p) <= radius
    case .star(let center, let angles, let radii, let hole):
      let dx = Self.wrapped(p.longitude - center.longitude)
      let dy = p.latitude - center.latitude
      let r = (dx * dx + dy * dy).squareRoot()
      let inOuter = r < Self.boundary(at: atan2(dy, dx), angles, radii)
      guard let hole else { return inOuter }
      return inOuter && r >= Self.boundary(at: atan2(dy, dx), angles, hole)
    case .polar(let longitudes, let latitudes, let north):
      let edge = Self.latitude(at: p.longitude, longitudes, latitudes)
      return north ? p.latitude > edge : p.latitude < edge
    case .box(let west, let south, let east, let north):
      guard p.latitude >= south, p.latitude <= north else { return false }
      if west <= east { return p.longitude >= west && p.longitude <= east }
      return p.longitude >= west || p.longitude <= east
    }
  }

  /// How far from the centre the star's edge is along the ray at `angle`.
  private static func boundary(at angle: Double, _ angles: [Double], _ radii: [Double]) -> Double {
    let n = angles.count
    var phi = angle
    while phi < angles[0] { phi += 2 * .pi }
    var i = n - 1
    for k in 0..<(n - 1) where phi >= angles[k] && phi < angles[k + 1] { i = k }
    let j = (i + 1) % n
    let (ax, ay) = (radii[i] * cos(angles[i]), radii[i] * sin(angles[i]))
    let (bx, by) = (radii[j] * cos(angles[j]), radii[j] * sin(angles[j]))
    // The ray t(cos φ, sin φ) meets a + s(b - a).
    let (ux, uy) = (cos(phi), sin(phi))
    let (ex, ey) = (bx - ax, by - ay)
    let denominator = ux * ey - uy * ex
    return (ax * ey - ay * ex) / denominator
  }

  /// The ring's latitude at a longitude, between the vertices either side (the last joined to
  /// the first a turn later).
  private static func latitude(at longitude: Double, _ xs: [Double], _ ys: [Double]) -> Double {
    let xs = xs + [xs[0] + 360]
    let ys = ys + [ys[0]]
    var x = longitude
    while x < xs[0] { x += 360 }
    while x >= xs[0] + 360 { x -= 360 }
    for k in 0..<(xs.count - 1) where x >= xs[k] && x <= xs[k + 1] {
      return ys[k] + (ys[k + 1] - ys[k]) * (x - xs[k]) / (xs[k + 1] - xs[k])
    }
    return ys[0]
  }

  /// Whether the move from `a` to `b` passes through, both ends outside. Circles: the least
  /// distance along the great-circle arc by ternary search. The rest: every parameter where the
  /// straight path (the shorter way round) meets an edge, the pieces between tested at their
  /// middles.
  func crossed(from a: Coordinate, to b: Coordinate) -> Bool {
    guard !contains(a), !contains(b) else { return false }
    if case .circle(let center, let radius) = self {
      // Every point of the path is within its length of its start.
      guard
        Self.sphere.distance(center, a) <= radius + Self.sphere.distance(a, b)
      else { return false }
      let u = UnitVector(longitude: a.longitude, latitude: a.latitude)
      let v = UnitVector(longitude: b.longitude, latitude: b.latitude)
      func at(_ t: Double) -> Double {
        Self.sphere.distance(center, Self.slerp(u, v, t))
      }
      var (lo, hi) = (0.0, 1.0)
      for _ in 0..<100 {
        let m1 = lo + (hi - lo) / 3
        let m2 = hi - (hi - lo) / 3
        if at(m1) < at(m2) { hi = m2 } else { lo = m1 }
      }
      return at((lo + hi) / 2) <= radius
    }
    let bx = a.longitude + Self.wrapped(b.longitude - a.longitude)
    var ts: [Double] = [0, 1]
    for (p, q) in edges() {
      for shift in [-720.0, -360, 0, 360, 720] {
        if let t = Self.meet(
          a.longitude, a.latitude, bx, b.latitude, p.0 + shift, p.1, q.0 + shift, q.1)
        {
          ts.append(t)
        }
      }
    }
    ts.sort()
    for k in 0..<(ts.count - 1) where ts[k + 1] > ts[k] {
      let t = (ts[k] + ts[k + 1]) / 2
      let point = Coordinate(
        longitude: Self.wrapped(a.longitude + (bx - a.longitude) * t),
        latitude: a.latitude + (b.latitude - a.latitude) * t)
      if contains(point) { return true }
    }
    return false
  }

  /// The edges as (lon, lat) pairs, longitudes continuous along each ring.
  private func edges() -> [((Double, Double), (Double, Double))] {
    func closed(_ points: [(Double, Double)]) -> [((Double, Double), (Double, Double))] {
      (0..<points.count).map { (points[$0], points[($0 + 1) % points.count]) }
    }
    switch self {
    case .circle: return []
    case .star(let center, let angles, let radii, let hole):
      func points(_ radii: [Double]) -> [(Double, Double)] {
        zip(angles, radii).map { angle, r -> (Double, Double) in
          (center.longitude + r * cos(angle), center.latitude + r * sin(angle))
        }
      }
      return closed(points(radii)) + (hole.map { closed(points($0)) } ?? [])
    case .polar(let xs, let ys, _):
      var out: [((Double, Double), (Double, Double))] = []
      for k in 0..<(xs.count - 1) {
        let p: (Double, Double) = (xs[k], ys[k])
        let q: (Double, Double) = (xs[k + 1], ys[k + 1])
        out.append((p, q))
      }
      let last: (Double, Double) = (xs[xs.count - 1], ys[ys.count - 1])
      let first: (Double, Double) = (xs[0] + 360, ys[0])
      out.append((last, first))
      return out
    case .box(let west, let south, let east, let north):
      let e = east < west ? east + 360 : east
      return closed([(west, south), (e, south), (e, north), (west, north)])
    }
  }

  /// Where segment a–b (parameter t) crosses segment p–q, if it does.
  private static func meet(
    _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
    _ px: Double, _ py: Double, _ qx: Double, _ qy: Double
  ) -> Double? {
    let (rx, ry) = (bx - ax, by - ay)
    let (sx, sy) = (qx - px, qy - py)
    let denominator = rx * sy - ry * sx
    guard denominator != 0 else { return nil }
    let t = ((px - ax) * sy - (py - ay) * sx) / denominator
    let u = ((px - ax) * ry - (py - ay) * rx) / denominator
    guard t >= 0, t <= 1, u >= 0, u <= 1 else { return nil }
    return t
  }

  private static func slerp(_ u: UnitVector, _ v: UnitVector, _ t: Double) -> Coordinate {
    let omega = acos(max(-1, min(1, u.dot(v))))
    guard omega > 1e-12 else {
      return Coordinate(longitude: atan2(u.y, u.x) * 180 / .pi, latitude: asin(u.z) * 180 / .pi)
    }
    let a = sin((1 - t) * omega) / sin(omega)
    let b = sin(t * omega) / sin(omega)
    let x = a * u.x + b * v.x
    let y = a * u.y + b * v.y
    let z = a * u.z + b * v.z
    let n = (x * x + y * y + z * z).squareRoot()
    return Coordinate(
      longitude: atan2(y, x) * 180 / .pi, latitude: asin(max(-1, min(1, z / n))) * 180 / .pi)
  }
}
