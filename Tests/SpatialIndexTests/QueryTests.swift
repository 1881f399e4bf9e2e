import Datasets
import Geodesy
import Testing

@testable import SpatialIndex

@Suite struct QueryTests {
  @Test(arguments: [(0, 1 as UInt64), (1, 2), (15, 3), (16, 4), (300, 5), (5000, 6)])
  func agreesWithBruteForce(count: Int, seed: UInt64) throws {
    let items = TestData.items(count: count, seed: seed, withRadius: true)
    var agreement = OracleAgreement(
      index: try GeoIndex(items: items), oracle: LinearScan(items: items))
    var rng = SeededGenerator(seed: seed &* 31)
    agreement.run(queries: 300, rng: &rng)
    #expect(agreement.failures.isEmpty, "\(agreement.failures.joined(separator: "\n"))")
  }

  @Test(
    "nearest by chord: the k smallest chords within the limit, ties by id",
    arguments: [UInt64(7), 8])
  func nearestChordsAgreeWithBruteForce(seed: UInt64) throws {
    let items =
      TestData.items(count: 3000, seed: seed)
      + (0..<20).map {
        Item(id: ItemID(3000 + $0), longitude: 2.35, latitude: 48.85)
      }
    let searcher = try GeoIndex(items: items).makeSearcher()
    var rng = SeededGenerator(seed: seed &* 31)
    for q in 0..<300 {
      let c = q % 5 == 0 ? Coordinate(longitude: 2.35, latitude: 48.85) : TestData.queryPoint(&rng)
      let k = 1 + rng.nextInt(below: 30)
      let within = [1_000.0, 100_000, 5_000_000, 30_000_000][q % 4]
      let centre = UnitVector(longitude: c.longitude, latitude: c.latitude)
      let limit = Sphere.earth.chordSquared(forDistance: within)
      var ranked: [(id: ItemID, c2: Double)] = []
      for item in items {
        let c2 = UnitVector(longitude: item.longitude, latitude: item.latitude)
          .chordSquared(to: centre)
        if c2 <= limit { ranked.append((item.id, c2)) }
      }
      ranked.sort { $0.c2 < $1.c2 || ($0.c2 == $1.c2 && $0.id < $1.id) }
      let expected = ranked.prefix(k)
      let got = searcher.nearestChords(
        longitude: c.longitude, latitude: c.latitude, k: k, within: within
      ) { Array($0) }
      // The limit is widened by the rounding margin: at most members on its very edge differ.
      #expect(got.prefix(expected.count).map(\.id) == expected.map { $0.id })
      #expect(got.count >= expected.count && got.count <= k)
      for hit in got.dropFirst(expected.count) {
        #expect(hit.chordSquared <= GeoSearcher.widen(limit))
      }
      #expect(zip(got, expected).allSatisfy { $0.chordSquared == $1.c2 })
    }
  }

  @Test func emptyIndexAnswersNothing() throws {
    let s = try GeoIndex().makeSearcher()
    #expect(s.nearest(longitude: 0, latitude: 0, k: 5).isEmpty)
    #expect(s.radius(longitude: 0, latitude: 0, radius: 20_000_000).isEmpty)
    #expect(
      s.box(GeoBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90))
        .isEmpty)
    #expect(s.circlesContaining(longitude: 0, latitude: 0).isEmpty)
    #expect(
      s.clusters(
        in: GeoBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90),
        zoom: 0
      ).isEmpty)
  }

  @Test func nearestAcrossTheAntimeridianAndThePole() throws {
    let items = [
      Item(id: 0, longitude: 179.9, latitude: 0), Item(id: 1, longitude: -179.9, latitude: 0),
      Item(id: 2, longitude: 0, latitude: 0), Item(id: 3, longitude: 10, latitude: 89.9),
      Item(id: 4, longitude: -170, latitude: 89.9),
    ]
    let s = try GeoIndex(items: items).makeSearcher()
    #expect(s.nearest(longitude: -179.99, latitude: 0, k: 2).map(\.id) == [1, 0])
    // Across the pole, 10°E and 170°W at 89.9°N are 0.2° apart: nearer than anything else.
    #expect(s.nearest(longitude: 10, latitude: 89.9, k: 2).map(\.id) == [3, 4])
    let box = GeoBox(minLongitude: 179, minLatitude: -1, maxLongitude: -179, maxLatitude: 1)
    #expect(Set(s.box(box).map(\.id)) == [0, 1])
  }

  @Test func duplicatePointsTieByID() throws {
    let items = (0..<40).map { Item(id: ItemID(39 - $0), longitude: 2.35, latitude: 48.85) }
    let s = try GeoIndex(items: items).makeSearcher()
    #expect(s.nearest(longitude: 2.35, latitude: 48.85, k: 5).map(\.id) == [0, 1, 2, 3, 4])
    #expect(s.radius(longitude: 2.35, latitude: 48.85, radius: 0).count == 40)
    let cluster = s.clusters(
      in: GeoBox(minLongitude: 2, minLatitude: 48, maxLongitude: 3, maxLatitude: 49), zoom: 20)
    #expect(cluster.count == 1)
    #expect(cluster.first?.count == 40)
    #expect(cluster.first?.expansionZoom == ClusterGrid.maxZoom + 1)
  }

  @Test func kLargerThanTheIndexReturnsEverything() throws {
    let items = TestData.items(count: 50, seed: 9)
    let s = try GeoIndex(items: items).makeSearcher()
    #expect(s.nearest(longitude: 0, latitude: 0, k: 1000).count == 50)
  }

  @Test func laterDuplicateIDsWinInBulkBuild() throws {
    let index = try GeoIndex(items: [
      Item(id: 1, longitude: 1, latitude: 1), Item(id: 1, longitude: 2, latitude: 2),
    ])
    #expect(index.count == 1)
    #expect(index.item(id: 1)?.longitude == 2)
  }
}

@Suite struct HilbertTests {
  /// The 32-bit curve refines the 16-bit one: the top half of every key is the coarse curve's
  /// key of the same cell, and consecutive keys in a corner block are neighbouring cells.
  @Test func thirtyTwoBitCurveIsAHilbertCurve() throws {
    var rng = SeededGenerator(seed: 5)
    var positions = [UInt64: (Int, Int)]()
    for x in 0..<64 {
      for y in 0..<64 { positions[hilbertIndex(x: UInt32(x), y: UInt32(y))] = (x, y) }
    }
    #expect(positions.count == 4096)
    for d in 0..<4095 {
      guard let a = positions[UInt64(d)], let b = positions[UInt64(d + 1)] else {
        Issue.record("key \(d) missing from the corner block")
        return
      }
      #expect(abs(a.0 - b.0) + abs(a.1 - b.1) == 1)
    }
    for _ in 0..<1000 {
      let x = UInt32(truncatingIfNeeded: rng.next())
      let y = UInt32(truncatingIfNeeded: rng.next())
      let coarse = hilbertIndex(x: x >> 16, y: y >> 16) & 0xFFFF_FFFF
      #expect(hilbertIndex(x: x, y: y) >> 32 == coarse)
    }
  }

  @Test func radixSortSorts() throws {
    var rng = SeededGenerator(seed: 6)
    var keys = (0..<10_000).map { _ in rng.next() }
    let expected = keys.sorted()
    radixSort(&keys)
    #expect(keys == expected)
  }
}
