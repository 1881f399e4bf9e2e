import Datasets
import Geodesy
import SpatialIndex
import Testing

@Suite struct EstimateTests {
  /// `mayFind` is an upper bound: whenever more than the limit lie in the circle it says so, an
  /// overflow included. And it is tight enough to tell a small search from a large one.
  @Test func mayFindBoundsTheCount() throws {
    let items = TestData.items(count: 30_000, seed: 51)
    let index = try GeoIndex(items: items)
    let extra = TestData.items(count: 2_000, seed: 52).map {
      Item(id: $0.id + 100_000, longitude: $0.longitude, latitude: $0.latitude)
    }
    for item in extra { try index.upsert(item) }  // ids past the table: into the overflow
    let oracle = LinearScan(items: items + extra)
    let searcher = index.makeSearcher()
    var rng = SeededGenerator(seed: 53)
    for _ in 0..<300 {
      let q = TestData.queryPoint(&rng)
      let radius = [1_000.0, 50_000, 500_000, 5_000_000, 20_000_000][Int(rng.next() % 5)]
      let found = oracle.radius(longitude: q.longitude, latitude: q.latitude, radius: radius).count
      for limit in [0, 100, 1_000, 10_000, 40_000] where found > limit {
        #expect(
          searcher.mayFind(
            moreThan: limit, longitude: q.longitude, latitude: q.latitude, radius: radius),
          "\(found) within \(radius) m of \(q)")
      }
    }
    #expect(!searcher.mayFind(moreThan: 5_000, longitude: 2.35, latitude: 48.85, radius: 1_000))
    #expect(searcher.mayFind(moreThan: 5_000, longitude: 0, latitude: 0, radius: 20_000_000))
  }
}
