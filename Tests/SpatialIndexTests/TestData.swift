import Datasets
import Foundation
import Geodesy
import SpatialIndex

/// Helpers over the seeded generator, so every run tests the same cases.
extension SeededGenerator {
  mutating func unit() -> Double { nextDouble() }
  mutating func range(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * nextDouble() }
}

enum TestData {
  /// Uniform on the sphere.
  static func uniformPoint(_ rng: inout SeededGenerator) -> Coordinate {
    Coordinate(
      longitude: rng.range(-180, 180), latitude: asin(rng.range(-1, 1)) * 180 / .pi)
  }

  /// A point within about `spread` degrees of a centre, wrapped into range.
  static func near(_ c: Coordinate, spread: Double, _ rng: inout SeededGenerator) -> Coordinate {
    var lon = c.longitude + rng.range(-spread, spread) * rng.unit()
    var lat = c.latitude + rng.range(-spread, spread) * rng.unit()
    if lat > 90 {
      lat = 180 - lat
      lon += 180
    }
    if lat < -90 {
      lat = -180 - lat
      lon += 180
    }
    while lon > 180 { lon -= 360 }
    while lon < -180 { lon += 360 }
    return Coordinate(longitude: lon, latitude: lat)
  }

  /// Centres that put clusters on the places where spherical code breaks: both poles, both
  /// sides of the antimeridian, the equator and prime meridian, and a few real cities.
  static let hardCentres: [Coordinate] = [
    Coordinate(longitude: 0, latitude: 90), Coordinate(longitude: 45, latitude: -90),
    Coordinate(longitude: 179.99, latitude: 10), Coordinate(longitude: -179.99, latitude: -10),
    Coordinate(longitude: 180, latitude: 65), Coordinate(longitude: 0, latitude: 0),
    Coordinate(longitude: 139.6917, latitude: 35.6895),
    Coordinate(longitude: -0.1276, latitude: 51.5072),
    Coordinate(longitude: -74.006, latitude: 40.7128),
    Coordinate(longitude: 151.2093, latitude: -33.8688),
    Coordinate(longitude: -149.9, latitude: 61.2), Coordinate(longitude: 9.52, latitude: 47.14),
  ]

  /// Items: a uniform part, clusters around the hard centres, and exact duplicates.
  static func items(count: Int, seed: UInt64, withRadius: Bool = false) -> [Item] {
    var rng = SeededGenerator(seed: seed)
    var items = [Item]()
    var id: ItemID = 0
    func add(_ c: Coordinate) {
      let r: Float =
        withRadius ? Float(rng.range(0, 1) < 0.1 ? rng.range(0, 2_000_000) : rng.range(0, 3000)) : 0
      items.append(
        Item(
          id: id, longitude: c.longitude, latitude: c.latitude, radius: r,
          attributes: UInt32(rng.next() & 0b111)))
      id += 1
    }
    while items.count < count {
      let roll = rng.unit()
      if roll < 0.3 {
        add(uniformPoint(&rng))
      } else if roll < 0.9 {
        let centre = hardCentres[Int(rng.next() % UInt64(hardCentres.count))]
        add(near(centre, spread: rng.unit() < 0.5 ? 0.05 : 2, &rng))
      } else if let copy = items.last {
        add(Coordinate(longitude: copy.longitude, latitude: copy.latitude))
      }
    }
    return items
  }

  /// A query point: near the data half the time, anywhere otherwise.
  static func queryPoint(_ rng: inout SeededGenerator) -> Coordinate {
    if rng.unit() < 0.5 { return uniformPoint(&rng) }
    return near(hardCentres[Int(rng.next() % UInt64(hardCentres.count))], spread: 1, &rng)
  }

  static func filter(_ rng: inout SeededGenerator) -> Filter {
    switch rng.next() % 4 {
    case 0: return .all
    case 1: return .has(1)
    case 2: return Filter(mask: 0b110, value: 0b010)
    default: return Filter(mask: 0b1, value: 0)
    }
  }

  static func box(_ rng: inout SeededGenerator) -> GeoBox {
    let c = queryPoint(&rng)
    let w = [0.0, 0.01, 0.5, 5, 60, 400][Int(rng.next() % 6)]
    let h = [0.0, 0.01, 0.5, 5, 60, 200][Int(rng.next() % 6)]
    if w >= 360 {
      return GeoBox(
        minLongitude: -180, minLatitude: max(-90, c.latitude - h), maxLongitude: 180,
        maxLatitude: min(90, c.latitude + h))
    }
    var west = c.longitude - w / 2
    var east = c.longitude + w / 2
    if west < -180 { west += 360 }
    if east > 180 { east -= 360 }
    return GeoBox(
      minLongitude: west, minLatitude: max(-90, c.latitude - h / 2), maxLongitude: east,
      maxLatitude: min(90, c.latitude + h / 2))
  }
}
