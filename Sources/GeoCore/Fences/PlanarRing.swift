import Geodesy

/// A polygon's ring with straight edges in longitude/latitude degrees, as GeoJSON (RFC 7946)
/// draws them, prepared for point and path tests. An edge goes the shorter way round in
/// longitude, so a ring may cross the antimeridian: its longitudes are unwrapped (each within
/// 180° of the one before). A ring that winds once round the Earth encloses a pole, the one on
/// its side of the equator (by its mean latitude); it is closed along that pole's latitude.
struct PlanarRing: Sendable {
  /// The vertices, unwrapped, the first repeated last.
  let xs: [Double]
  let ys: [Double]
  let minX: Double
  let maxX: Double
  let minY: Double
  let maxY: Double
  /// The pole it winds round: 90, -90, or 0 for none.
  let pole: Double

  /// Nil when the ring has fewer than 3 distinct points or winds round more than once.
  init?(_ points: [Coordinate]) {
    var points = points
    if points.count > 1, points.first == points.last { points.removeLast() }
    guard points.count >= 3, Set(points).count >= 3 else { return nil }
    var xs = [points[0].longitude]
    var ys = [points[0].latitude]
    for point in points.dropFirst() {
      xs.append(Self.nearest(point.longitude, to: xs[xs.count - 1]))
      ys.append(point.latitude)
    }
    let closing = Self.nearest(points[0].longitude, to: xs[xs.count - 1])
    let winding = closing - xs[0]
    guard abs(winding) < 540 else { return nil }
    var pole = 0.0
    if abs(winding) > 180 {
      pole = ys.reduce(0, +) / Double(ys.count) >= 0 ? 90 : -90
      xs += [closing, closing, xs[0]]
      ys += [ys[0], pole, pole]
    }
    xs.append(xs[0])
    ys.append(ys[0])
    guard let minX = xs.min(), let maxX = xs.max(), maxX - minX <= 360 + 1e-9 else { return nil }
    self.xs = xs
    self.ys = ys
    self.minX = minX
    self.maxX = maxX
    minY = ys.min()!
    maxY = ys.max()!
    self.pole = pole
  }

  /// `longitude` moved by whole turns to within 180° of `reference`.
  static func nearest(_ longitude: Double, to reference: Double) -> Double {
    var x = longitude
    while x - reference > 180 { x -= 360 }
    while x - reference < -180 { x += 360 }
    return x
  }

  /// Whether the point is inside (the even-odd rule; a point on an edge may go either way).
  func contains(longitude: Double, latitude: Double) -> Bool {
    guard latitude >= minY, latitude <= maxY else { return false }
    var x = longitude
    while x > minX { x -= 360 }
    while x < minX { x += 360 }
    while x <= maxX {
      if evenOdd(x, latitude) { return true }
      x += 360
    }
    return false
  }

  private func evenOdd(_ x: Double, _ y: Double) -> Bool {
    var inside = false
    for i in 0..<(xs.count - 1) {
      let (x0, y0, x1, y1) = (xs[i], ys[i], xs[i + 1], ys[i + 1])
      if (y0 > y) != (y1 > y), x < (x1 - x0) * (y - y0) / (y1 - y0) + x0 { inside.toggle() }
    }
    return inside
  }

  /// Whether the straight segment from (ax, ay) to (bx, by) (unwrapped: `bx` within 180° of
  /// `ax`) meets an edge.
  func meets(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Bool {
    guard max(ay, by) >= minY, min(ay, by) <= maxY else { return false }
    var shift = 0.0
    while min(ax, bx) + shift > minX { shift -= 360 }
    while max(ax, bx) + shift < minX { shift += 360 }
    while min(ax, bx) + shift <= maxX {
      for i in 0..<(xs.count - 1)
      where Self.intersect(
        ax + shift, ay, bx + shift, by, xs[i], ys[i], xs[i + 1], ys[i + 1])
      {
        return true
      }
      shift += 360
    }
    return false
  }

  /// Whether segments p–q and r–s share a point (touching counts).
  static func intersect(
    _ px: Double, _ py: Double, _ qx: Double, _ qy: Double,
    _ rx: Double, _ ry: Double, _ sx: Double, _ sy: Double
  ) -> Bool {
    func orient(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
      -> Double
    { (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) }
    func within(_ a: Double, _ b: Double, _ c: Double) -> Bool { c >= min(a, b) && c <= max(a, b) }
    let d1 = orient(rx, ry, sx, sy, px, py)
    let d2 = orient(rx, ry, sx, sy, qx, qy)
    let d3 = orient(px, py, qx, qy, rx, ry)
    let d4 = orient(px, py, qx, qy, sx, sy)
    if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
      return true
    }
    if d1 == 0, within(rx, sx, px), within(ry, sy, py) { return true }
    if d2 == 0, within(rx, sx, qx), within(ry, sy, qy) { return true }
    if d3 == 0, within(px, qx, rx), within(py, qy, ry) { return true }
    if d4 == 0, within(px, qx, sx), within(py, qy, sy) { return true }
    return false
  }
}
