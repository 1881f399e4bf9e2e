import Datasets
import Geodesy
import SpatialIndex
import Testing

/// Runs random queries of every kind against the index and the brute-force scan and records the
/// first disagreements. Distances must be equal bit for bit: both sides use the same haversine.
struct OracleAgreement {
  let searcher: GeoSearcher
  let oracle: LinearScan
  var failures = [String]()

  init(index: GeoIndex, oracle: LinearScan) {
    self.searcher = index.makeSearcher()
    self.oracle = oracle
  }

  private static func sortedHits(_ hits: [Hit]) -> [Hit] {
    hits.sorted { $0.distance < $1.distance || ($0.distance == $1.distance && $0.id < $1.id) }
  }

  private mutating func check(_ ok: Bool, _ what: @autoclosure () -> String) {
    if !ok && failures.count < 10 { failures.append(what()) }
  }

  /// Asks `queries` random queries; from `near` in turn when given, else from `TestData`.
  mutating func run(queries: Int, rng: inout SeededGenerator, near: [Coordinate] = []) {
    let n = oracle.items.count
    for i in 0..<queries {
      let q = near.isEmpty ? TestData.queryPoint(&rng) : near[i % near.count]
      let filter = TestData.filter(&rng)
      let k = [1, 2, 10, 100, n, n + 7][Int(rng.next() % 6)]
      let within = [Double.infinity, 0, 1, 1000, 100_000, 20_000_000][Int(rng.next() % 6)]
      let got = searcher.nearest(
        longitude: q.longitude, latitude: q.latitude, k: k, within: within, filter: filter)
      let want = oracle.nearest(
        longitude: q.longitude, latitude: q.latitude, k: k, within: within, filter: filter)
      check(
        got == want,
        "nearest k=\(k) within=\(within) at \(q) \(filter): \(got.prefix(3)) vs \(want.prefix(3)) (\(got.count) vs \(want.count))"
      )

      let r = [0.0, 1, 500, 1000, 10_000, 250_000, 5_000_000, 20_000_000][Int(rng.next() % 8)]
      let inRadius = Self.sortedHits(
        searcher.radius(longitude: q.longitude, latitude: q.latitude, radius: r, filter: filter))
      let wantRadius = oracle.radius(
        longitude: q.longitude, latitude: q.latitude, radius: r, filter: filter)
      check(
        inRadius == wantRadius,
        "radius \(r) at \(q) \(filter): \(inRadius.count) vs \(wantRadius.count)")

      let count = [1, 5, 50][Int(rng.next() % 3)]
      let sorted = searcher.radius(
        longitude: q.longitude, latitude: q.latitude, radius: r, filter: filter, sorted: true,
        count: count)
      check(sorted == Array(wantRadius.prefix(count)), "sorted radius \(r) count \(count) at \(q)")

      let box = TestData.box(&rng)
      let inBox = searcher.box(box, filter: filter).sorted { $0.id < $1.id }
      let wantBox = oracle.box(box, filter: filter)
      check(inBox == wantBox, "box \(box) \(filter): \(inBox.count) vs \(wantBox.count)")

      let circles = Self.sortedHits(
        searcher.circlesContaining(longitude: q.longitude, latitude: q.latitude, filter: filter))
      let wantCircles = oracle.circlesContaining(
        longitude: q.longitude, latitude: q.latitude, filter: filter)
      check(
        circles == wantCircles,
        "circles at \(q) \(filter): \(circles.count) vs \(wantCircles.count)")

      let zoom = Int(rng.next() % 21)
      let clusters = searcher.clusters(in: box, zoom: zoom, filter: filter)
      let wantClusters = oracle.clusters(in: box, zoom: zoom, filter: filter)
      check(
        clusters == wantClusters,
        "clusters z\(zoom) \(box) \(filter): \(clusters.count) vs \(wantClusters.count) first diff \(zip(clusters, wantClusters).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "-")"
      )
    }
  }
}
