import Datasets
import Foundation
import Geodesy
import SpatialIndex
import Testing

@testable import IndexBaselines

/// SQLiteRTree must answer exactly as the brute-force oracle does.
@Suite struct SQLiteRTreeTests {
  static let items: [Item] = {
    let generator = try! DatasetGenerator()
    var coordinates = generator.realistic(count: 3000, seed: 41)
    coordinates += DatasetGenerator.uniform(count: 1500, seed: 41)
    // Hard places: both sides of the antimeridian, next to the poles, and on them.
    var rng = SeededGenerator(seed: 99)
    for _ in 0..<150 {
      coordinates.append(
        Coordinate(longitude: 179.5 + rng.nextDouble() * 0.5, latitude: -5 + 10 * rng.nextDouble()))
      coordinates.append(
        Coordinate(longitude: -180 + rng.nextDouble() * 0.5, latitude: -5 + 10 * rng.nextDouble()))
      coordinates.append(
        Coordinate(longitude: -180 + 360 * rng.nextDouble(), latitude: 89 + rng.nextDouble()))
      coordinates.append(
        Coordinate(longitude: -180 + 360 * rng.nextDouble(), latitude: -89 - rng.nextDouble()))
    }
    coordinates += [
      Coordinate(longitude: 180, latitude: 0), Coordinate(longitude: -180, latitude: 0),
      Coordinate(longitude: 0, latitude: 90), Coordinate(longitude: 123, latitude: -90),
    ]
    // Exact duplicates, so ties are broken by id.
    coordinates += coordinates.prefix(200)
    return coordinates.enumerated().map { i, c in
      Item(id: ItemID(i * 3 + 1), longitude: c.longitude, latitude: c.latitude)
    }
  }()

  static let oracle = LinearScan(items: items)
  static let rtree = try! SQLiteRTree(items: items)

  static let queries: [Coordinate] = {
    let generator = try! DatasetGenerator()
    var points = generator.queryPoints(count: 40, seed: 5)
    points += DatasetGenerator.uniform(count: 20, seed: 6)
    points += [
      Coordinate(longitude: 180, latitude: 0), Coordinate(longitude: -180, latitude: 0),
      Coordinate(longitude: 179.99, latitude: 1), Coordinate(longitude: -179.99, latitude: -1),
      Coordinate(longitude: 0, latitude: 90), Coordinate(longitude: 0, latitude: -90),
      Coordinate(longitude: 45, latitude: 89.9), Coordinate(longitude: -120, latitude: -89.95),
      generator.denseCityCentre,
      Coordinate(longitude: items[7].longitude, latitude: items[7].latitude),
    ]
    return points
  }()

  private func expectSame(_ got: [Hit], _ want: [Hit], _ what: String) {
    #expect(got.count == want.count, "\(what): \(got.count) hits, oracle \(want.count)")
    #expect(Set(got.map(\.id)) == Set(want.map(\.id)), "\(what): different ids")
    let wanted = Dictionary(uniqueKeysWithValues: want.map { ($0.id, $0) })
    for hit in got {
      guard let w = wanted[hit.id] else { continue }
      #expect(hit.longitude == w.longitude && hit.latitude == w.latitude, "\(what): id \(hit.id)")
      #expect(
        abs(hit.distance - w.distance) <= 1e-9 * max(1, w.distance),
        "\(what): id \(hit.id) at \(hit.distance), oracle \(w.distance)")
    }
    let ordered = zip(got, got.dropFirst()).allSatisfy {
      $0.distance < $1.distance || ($0.distance == $1.distance && $0.id < $1.id)
    }
    #expect(ordered, "\(what): not sorted by distance then id")
  }

  @Test(arguments: [0.0, 1, 250, 5_000, 50_000, 1_000_000, 6_000_000, 20_000_000, 25_000_000])
  func radiusMatchesOracle(radius: Double) throws {
    // Big radii return most of the points; the special places and a few others are enough there.
    for q in radius > 1_000_000 ? Array(Self.queries.suffix(16)) : Self.queries {
      let got = try Self.rtree.radius(longitude: q.longitude, latitude: q.latitude, radius: radius)
      let want = Self.oracle.radius(longitude: q.longitude, latitude: q.latitude, radius: radius)
      expectSame(got, want, "radius \(radius) at \(q)")
    }
  }

  @Test func radiusIncludesItsEdge() throws {
    for q in Self.queries.prefix(20) {
      let all = Self.oracle.nearest(longitude: q.longitude, latitude: q.latitude, k: 50)
      for edge in [all[0], all[9], all[49]] {
        let got = try Self.rtree.radius(
          longitude: q.longitude, latitude: q.latitude, radius: edge.distance)
        let want = Self.oracle.radius(
          longitude: q.longitude, latitude: q.latitude, radius: edge.distance)
        expectSame(got, want, "edge radius at \(q)")
        #expect(got.contains { $0.id == edge.id })
      }
    }
    // Radius 0 on top of a point finds it and its duplicate.
    let item = Self.items[7]
    let hits = try Self.rtree.radius(longitude: item.longitude, latitude: item.latitude, radius: 0)
    #expect(hits.map(\.id).contains(item.id) && hits.allSatisfy { $0.distance == 0 })
    #expect(try Self.rtree.radius(longitude: 0, latitude: 0, radius: -1).isEmpty)
  }

  @Test(arguments: [1, 2, 10, 100, 1000])
  func nearestMatchesOracle(k: Int) throws {
    for q in k > 100 ? Array(Self.queries.suffix(16)) : Self.queries {
      let got = try Self.rtree.nearest(longitude: q.longitude, latitude: q.latitude, k: k)
      let want = Self.oracle.nearest(longitude: q.longitude, latitude: q.latitude, k: k)
      expectSame(got, want, "k \(k) at \(q)")
    }
  }

  @Test func nearestBeyondTheCount() throws {
    let n = Self.items.count
    for k in [n - 1, n, n + 5, Int.max] {
      for q in Self.queries.suffix(6) {
        let got = try Self.rtree.nearest(longitude: q.longitude, latitude: q.latitude, k: k)
        #expect(got.count == min(k, n))
        expectSame(
          got, Self.oracle.nearest(longitude: q.longitude, latitude: q.latitude, k: k),
          "k \(k) at \(q)")
      }
    }
    #expect(try Self.rtree.nearest(longitude: 0, latitude: 0, k: 0).isEmpty)
  }

  /// A point alone on the far side of the world: the search has to grow to the whole sphere.
  @Test func nearestAcrossTheWorld() throws {
    let lonely = [
      Item(id: 1, longitude: 179.9, latitude: 0.5), Item(id: 2, longitude: -179.95, latitude: -0.5),
      Item(id: 3, longitude: 10, latitude: 89.999),
    ]
    let rtree = try SQLiteRTree(items: lonely, initialRadius: 1)
    let oracle = LinearScan(items: lonely)
    for q in [
      Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: -0.1, latitude: -0.5),
      Coordinate(longitude: 180, latitude: 0), Coordinate(longitude: -170, latitude: 89.9),
    ] {
      for k in 1...4 {
        expectSame(
          try rtree.nearest(longitude: q.longitude, latitude: q.latitude, k: k),
          oracle.nearest(longitude: q.longitude, latitude: q.latitude, k: k),
          "lonely k \(k) at \(q)")
      }
    }
    let empty = try SQLiteRTree(items: [])
    #expect(try empty.nearest(longitude: 0, latitude: 0, k: 3).isEmpty)
    #expect(try empty.radius(longitude: 0, latitude: 0, radius: 20_000_000).isEmpty)
  }

  @Test func boxMatchesOracle() throws {
    let boxes = [
      GeoBox(minLongitude: -10, minLatitude: 35, maxLongitude: 30, maxLatitude: 60),
      GeoBox(minLongitude: 170, minLatitude: -20, maxLongitude: -170, maxLatitude: 20),
      GeoBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90),
      GeoBox(minLongitude: 121, minLatitude: 30.9, maxLongitude: 121.8, maxLatitude: 31.5),
      GeoBox(minLongitude: 0, minLatitude: 89, maxLongitude: 0, maxLatitude: 90),
    ]
    for box in boxes {
      let got = try Self.rtree.box(box)
      let want = Self.oracle.box(box)
      #expect(got == want, "\(box)")
    }
  }

  @Test func fileDatabaseAndErrors() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-rtree-\(UUID().uuidString).sqlite").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let items = Array(Self.items.prefix(500))
    let rtree = try SQLiteRTree(items: items, path: path)
    #expect(rtree.count == 500)
    #expect(FileManager.default.fileExists(atPath: path))
    let q = Self.queries[0]
    expectSame(
      try rtree.nearest(longitude: q.longitude, latitude: q.latitude, k: 20),
      LinearScan(items: items).nearest(longitude: q.longitude, latitude: q.latitude, k: 20), "file")
    #expect(try !rtree.sqliteVersion().isEmpty)
    // The box search goes through the R*Tree, then fetches each point by primary key.
    let plan = try rtree.overlapQueryPlan()
    #expect(plan.contains("VIRTUAL TABLE INDEX"), "\(plan)")
    #expect(plan.contains("PRIMARY KEY"), "\(plan)")
    #expect(throws: (any Error).self) {
      try SQLiteRTree(items: [
        Item(id: 5, longitude: 0, latitude: 0), Item(id: 5, longitude: 1, latitude: 1),
      ])
    }
  }
}
