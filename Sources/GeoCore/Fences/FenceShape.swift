import Geodesy

/// Where a fence is: a circle on the sphere (great-circle distance from its centre), or polygons
/// whose edges are straight in longitude/latitude (GeoJSON's reading; a box is one).
public struct FenceShape: Sendable {
  enum Form: Sendable {
    case circle(center: Coordinate, radius: Double)
    /// Polygons, each an outer ring and its holes.
    case polygons([[PlanarRing]])
  }

  let form: Form
  /// A circle holding the whole shape: what the fences' index holds.
  public let reach: (center: Coordinate, radius: Double)

  /// Within `radius` metres of `center`. Nil for a negative or non-finite radius.
  public static func circle(_ center: Coordinate, radius: Double) -> FenceShape? {
    guard radius.isFinite, radius >= 0 else { return nil }
    return FenceShape(
      form: .circle(center: center, radius: radius), reach: padded((center, radius)))
  }

  /// The longitudes from `west` eastward to `east` (across the antimeridian when `east` is
  /// less), and the latitudes from `south` to `north`. Nil when it has no area.
  public static func box(
    west: Double, south: Double, east: Double, north: Double, sphere: Sphere = .earth
  ) -> FenceShape? {
    guard south <= north else { return nil }
    var east = east
    if east < west { east += 360 }
    // Edges of at most 90° of longitude, so each goes the way meant.
    let steps = max(1, Int((east - west) / 90) + 1)
    let bottom = (0...steps).map {
      Coordinate(longitude: west + (east - west) * Double($0) / Double(steps), latitude: south)
    }
    let top = bottom.reversed().map { Coordinate(longitude: $0.longitude, latitude: north) }
    guard let ring = PlanarRing(bottom + top) else { return nil }
    return FenceShape(rings: [[ring]], sphere: sphere)
  }

  /// GeoJSON-style polygons: each an outer ring then its holes, rings as points (closed or
  /// not). Nil when a ring has fewer than 3 distinct points or winds round the Earth twice.
  public static func polygons(_ polygons: [[[Coordinate]]], sphere: Sphere = .earth)
    -> FenceShape?
  {
    var prepared: [[PlanarRing]] = []
    for polygon in polygons {
      guard !polygon.isEmpty else { return nil }
      var rings: [PlanarRing] = []
      for points in polygon {
        guard let ring = PlanarRing(points) else { return nil }
        rings.append(ring)
      }
      prepared.append(rings)
    }
    guard !prepared.isEmpty else { return nil }
    return FenceShape(rings: prepared, sphere: sphere)
  }

  private init(form: Form, reach: (center: Coordinate, radius: Double)) {
    self.form = form
    self.reach = reach
  }

  private init(rings: [[PlanarRing]], sphere: Sphere) {
    form = .polygons(rings)
    reach = Self.reach(of: rings.map { $0[0] }, sphere: sphere)
  }

  /// Whether the point is in the fence.
  public func contains(_ point: Coordinate, sphere: Sphere = .earth) -> Bool {
    switch form {
    case .circle(let center, let radius):
      return sphere.distance(center, point) <= radius
    case .polygons(let polygons):
      return polygons.contains { rings in
        rings[0].contains(longitude: point.longitude, latitude: point.latitude)
          && !rings.dropFirst().contains {
            $0.contains(longitude: point.longitude, latitude: point.latitude)
          }
      }
    }
  }

  /// Whether a move from `a` to `b` touches the fence, its ends included: along the great circle for a
  /// circle, along the straight line in longitude/latitude (the shorter way round) for
  /// polygons, as their edges are drawn.
  public func meets(pathFrom a: Coordinate, to b: Coordinate, sphere: Sphere = .earth) -> Bool {
    switch form {
    case .circle(let center, let radius):
      return sphere.distance(from: center, toArcFrom: a, to: b) <= radius
    case .polygons(let polygons):
      if contains(a, sphere: sphere) || contains(b, sphere: sphere) { return true }
      let bx = PlanarRing.nearest(b.longitude, to: a.longitude)
      return polygons.contains { rings in
        rings.contains { $0.meets(a.longitude, a.latitude, bx, b.latitude) }
      }
    }
  }

  /// A circle holding every outer ring: around a pole for a ring that winds round one, else
  /// around the middle of each ring's box, whose farthest points are its corners (distance from
  /// the middle grows along each parallel and each meridian away from it).
  private static func reach(of rings: [PlanarRing], sphere: Sphere)
    -> (center: Coordinate, radius: Double)
  {
    var circles: [(center: Coordinate, radius: Double)] = []
    for ring in rings {
      if ring.pole != 0 || ring.maxX - ring.minX >= 360 {
        let north = ring.pole > 0 || (ring.pole == 0 && ring.maxY + ring.minY >= 0)
        let pole = Coordinate(longitude: 0, latitude: north ? 90 : -90)
        let far = north ? ring.minY : ring.maxY
        circles.append((pole, sphere.distance(pole, Coordinate(longitude: 0, latitude: far))))
        continue
      }
      let center = Coordinate(
        longitude: normalized((ring.minX + ring.maxX) / 2), latitude: (ring.minY + ring.maxY) / 2)
      let corners = [
        (ring.minX, ring.minY), (ring.minX, ring.maxY), (ring.maxX, ring.minY),
        (ring.maxX, ring.maxY),
      ]
      let radius = corners.map {
        sphere.distance(center, Coordinate(longitude: normalized($0.0), latitude: $0.1))
      }.max()!
      circles.append((center, radius))
    }
    guard circles.count > 1 else { return padded(circles[0]) }
    // Several: around the first, reaching every other's far side.
    let center = circles[0].center
    let radius = circles.map { sphere.distance(center, $0.center) + $0.radius }.max()!
    return padded((center, radius))
  }

  private static func padded(_ circle: (center: Coordinate, radius: Double)) -> (
    center: Coordinate, radius: Double
  ) {
    (circle.center, circle.radius * (1 + 1e-9) + 1)
  }

  private static func normalized(_ longitude: Double) -> Double {
    var x = longitude
    while x > 180 { x -= 360 }
    while x < -180 { x += 360 }
    return x
  }
}
