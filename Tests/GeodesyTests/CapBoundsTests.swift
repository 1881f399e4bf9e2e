import Geodesy
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct CapBoundsTests {
  let sphere = Sphere.earth
  /// Slack for rounding: the boxes are exact, the sampled points carry a few ulps of error.
  let slack = 1e-9

  @Test func degenerateAtZeroRadius() {
    #expect(
      sphere.capBounds(longitude: 12, latitude: -34, radius: 0) == [
        LonLatRect(minLongitude: 12, minLatitude: -34, maxLongitude: 12, maxLatitude: -34)
      ])
    // At a pole every longitude is the same point.
    #expect(
      sphere.capBounds(longitude: 12, latitude: 90, radius: 0) == [
        LonLatRect(minLongitude: -180, minLatitude: 90, maxLongitude: 180, maxLatitude: 90)
      ])
  }

  @Test func wholeWorldFromHalfTheCircumference() {
    #expect(
      sphere.capBounds(longitude: 33, latitude: 10, radius: sphere.maximumDistance)
        == [.world])
    #expect(sphere.capBounds(longitude: -180, latitude: 0, radius: 1e9) == [.world])
  }

  @Test func splitsAtTheAntimeridian() {
    let east = sphere.capBounds(longitude: 179.5, latitude: 0, radius: 200_000)
    #expect(east.count == 2)
    #expect(east[0].maxLongitude == 180 && east[1].minLongitude == -180)
    #expect(east[0].minLongitude < 179.5 && east[1].maxLongitude > -180)
    let west = sphere.capBounds(longitude: -180, latitude: 45, radius: 1_000)
    #expect(west.count == 2)
    #expect(west[0].maxLongitude == 180 && west[1].minLongitude == -180)
  }

  @Test func knownWidthAtTheEquator() {
    // 1° of arc each way at the equator: the box is exactly ±1° in both directions.
    let boxes = sphere.capBounds(
      longitude: 0, latitude: 0, radius: sphere.radius * Double.pi / 180)
    #expect(boxes.count == 1)
    #expect(abs(boxes[0].maxLatitude - 1) < 1e-12 && abs(boxes[0].minLatitude + 1) < 1e-12)
    #expect(abs(boxes[0].maxLongitude - 1) < 1e-12 && abs(boxes[0].minLongitude + 1) < 1e-12)
  }

  @Test func poleInsideSpansAllLongitudes() {
    let boxes = sphere.capBounds(longitude: 50, latitude: 89, radius: 200_000)
    #expect(boxes.count == 1)
    #expect(boxes[0].minLongitude == -180 && boxes[0].maxLongitude == 180)
    #expect(boxes[0].maxLatitude == 90)
    #expect(abs(boxes[0].minLatitude - (89 - 200_000 / sphere.radius * 180 / Double.pi)) < 1e-12)
  }

  /// Random caps, including at the poles and the antimeridian: every sampled point of the cap is
  /// in a box, and the boxes reach exactly as far as the cap does.
  @Test func bruteForce() {
    var rng = SplitMix64(seed: 42)
    for trial in 0..<3_000 {
      let (lon, lat) = randomCentre(&rng)
      let r = randomRadius(&rng)
      let boxes = sphere.capBounds(longitude: lon, latitude: lat, radius: r)
      #expect(!boxes.isEmpty && boxes.count <= 2)
      for box in boxes {
        #expect(box.minLongitude <= box.maxLongitude && box.minLatitude <= box.maxLatitude)
        #expect(box.minLongitude >= -180 && box.maxLongitude <= 180)
        #expect(box.minLatitude >= -90 && box.maxLatitude <= 90)
      }
      for _ in 0..<100 {
        let d = Bool.random(using: &rng) ? r : Double.random(in: 0...r, using: &rng)
        let p = sphere.destination(
          longitude: lon, latitude: lat, bearing: Double.random(in: 0..<360, using: &rng),
          distance: d)
        #expect(covered(p, boxes), "trial \(trial): \(p) from (\(lon), \(lat)) r \(r)")
      }
      checkTight(boxes, lon: lon, lat: lat, r: r, trial: trial)
    }
  }

  func covered(_ p: Coordinate, _ boxes: [LonLatRect]) -> Bool {
    boxes.contains { box in
      // -180 and 180 are the same meridian, so try the point's longitude a turn either way.
      p.latitude >= box.minLatitude - slack && p.latitude <= box.maxLatitude + slack
        && [-360.0, 0, 360].contains { turn in
          p.longitude + turn >= box.minLongitude - slack
            && p.longitude + turn <= box.maxLongitude + slack
        }
    }
  }

  func checkTight(_ boxes: [LonLatRect], lon: Double, lat: Double, r: Double, trial: Int) {
    let rDegrees = r / sphere.radius * 180 / Double.pi
    let north = sphere.distance(longitude: lon, latitude: lat, longitude: 0, latitude: 90)
    let south = sphere.distance(longitude: lon, latitude: lat, longitude: 0, latitude: -90)
    let minLat = boxes.map(\.minLatitude).min()!
    let maxLat = boxes.map(\.maxLatitude).max()!
    if boxes.count == 1 && boxes[0].minLongitude == -180 && boxes[0].maxLongitude == 180 {
      // All longitudes only when a pole really is inside (within rounding).
      #expect(min(north, south) <= r + 1e-3, "trial \(trial)")
      #expect(abs(minLat - max(-90, lat - rDegrees)) < 1e-12, "trial \(trial)")
      #expect(abs(maxLat - min(90, lat + rDegrees)) < 1e-12, "trial \(trial)")
      return
    }
    #expect(min(north, south) >= r - 1e-3, "trial \(trial)")
    // The cap's northernmost and southernmost points are due north and south of the centre.
    let top = sphere.destination(longitude: lon, latitude: lat, bearing: 0, distance: r)
    let bottom = sphere.destination(longitude: lon, latitude: lat, bearing: 180, distance: r)
    #expect(abs(maxLat - top.latitude) < 1e-9 && abs(maxLat - (lat + rDegrees)) < 1e-12)
    #expect(abs(minLat - bottom.latitude) < 1e-9 && abs(minLat - (lat - rDegrees)) < 1e-12)
    // The widest point of the cap, found by ternary search over the eastward bearings, is
    // exactly as far east as the box reaches.
    var low = 0.0
    var high = 180.0
    func eastOffset(_ bearing: Double) -> Double {
      let p = sphere.destination(longitude: lon, latitude: lat, bearing: bearing, distance: r)
      let offset = p.longitude - lon
      return offset > 180 ? offset - 360 : (offset < -180 ? offset + 360 : offset)
    }
    for _ in 0..<200 {
      let m1 = low + (high - low) / 3
      let m2 = high - (high - low) / 3
      if eastOffset(m1) < eastOffset(m2) { low = m1 } else { high = m2 }
    }
    let halfWidth =
      boxes.count == 1
      ? boxes[0].maxLongitude - lon
      : (boxes[0].maxLongitude - boxes[0].minLongitude + boxes[1].maxLongitude + 180) / 2
    #expect(abs(eastOffset(low) - halfWidth) < 1e-7, "trial \(trial): r \(r) lat \(lat)")
  }

  func randomCentre(_ rng: inout SplitMix64) -> (Double, Double) {
    var lon = Double.random(in: -180...180, using: &rng)
    var lat = Double.random(in: -90...90, using: &rng)
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: lat = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 89.9...90, using: &rng)
    case 1: lon = (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 179.9...180, using: &rng)
    case 2: lat = Bool.random(using: &rng) ? 90 : -90
    case 3: lon = Bool.random(using: &rng) ? 180 : -180
    default: break
    }
    return (lon, lat)
  }

  func randomRadius(_ rng: inout SplitMix64) -> Double {
    switch Int.random(in: 0..<4, using: &rng) {
    case 0: return 0
    case 1: return Double.random(in: 0...20_000_000, using: &rng)
    default: return exp(Double.random(in: 0...log(20_000_000), using: &rng))
    }
  }
}
