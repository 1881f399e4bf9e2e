import Benchmark
import Geodesy
import IndexBaselines
import SpatialIndex

// The in-memory index (SpatialIndex.GeoIndex) and its baselines on N points, N from
// CARDATLAS_BENCH_POINTS (default 1,000,000): see README.md beside Package.swift.
//
// Every benchmark's setup builds what it needs (Fixtures, once per process, untimed); each
// iteration of its body is `scalingFactor` operations, so the figures printed (marked *) are per
// operation. Queries cycle through a precomputed array of 10,000 query points.

/// The mean number of results per operation (hits, or cluster markers), for the queries whose
/// answer size matters for reading their time.
let results = BenchmarkMetric.custom("results", polarity: .prefersLarger, useScalingFactor: true)

let queryMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: queryMetrics, warmupIterations: 1, scalingFactor: .kilo, maxDuration: .seconds(2))

  // MARK: Bulk build: one operation is building the whole index over N points.

  let build = Benchmark.Configuration(
    metrics: queryMetrics, warmupIterations: 1, scalingFactor: .one, maxDuration: .seconds(10),
    maxIterations: 10)
  Benchmark("Build realistic", configuration: build) { benchmark in
    try timedBuilds(benchmark, Fixtures.realisticItems)
  } setup: {
    try Fixtures.requireData()
    _ = Fixtures.realisticItems
  }
  Benchmark("Build uniform", configuration: build) { benchmark in
    try timedBuilds(benchmark, Fixtures.uniformItems)
  } setup: {
    _ = Fixtures.uniformItems
  }

  // MARK: Writes, each on an index of its own built from the realistic points.

  // Insert: items the index does not hold, at new places drawn like the data. After the timed
  // inserts, the same items are removed again (untimed) so the index stays at N items.
  Benchmark("Insert") { (benchmark, state: WriteState) in
    let batch = state.next(Fixtures.insertions.count, benchmark.scaledIterations.count)
    benchmark.startMeasurement()
    for i in batch { blackHole(try state.index.upsert(Fixtures.insertions[i])) }
    benchmark.stopMeasurement()
    for i in batch { state.index.remove(id: Fixtures.insertions[i].id) }
  } setup: {
    try Fixtures.requireData()
    _ = Fixtures.insertions
    return WriteState(index: try GeoIndex(items: Fixtures.realisticItems))
  }

  // Delete: indexed ids in random order. After the timed deletes the items are put back
  // (untimed), so the index stays at N items.
  Benchmark("Delete") { (benchmark, state: WriteState) in
    let batch = state.next(Fixtures.shuffledIDs.count, benchmark.scaledIterations.count)
    benchmark.startMeasurement()
    for i in batch { blackHole(state.index.remove(id: Fixtures.shuffledIDs[i])) }
    benchmark.stopMeasurement()
    for i in batch { try state.index.upsert(Fixtures.realisticItems[Int(Fixtures.shuffledIDs[i])]) }
  } setup: {
    try Fixtures.requireData()
    _ = Fixtures.shuffledIDs
    return WriteState(index: try GeoIndex(items: Fixtures.realisticItems))
  }

  // Move: upsert of an indexed id at a new place, 90 % within about 100 m of where it is, 10 %
  // to another item's place. The index's amortized cost: moves loosen the tree, and every so
  // often it is rebuilt on a background thread (part of what this measures).
  Benchmark("Move") { (benchmark, state: WriteState) in
    for _ in benchmark.scaledIterations {
      let (id, step) = Fixtures.moves[state.next(Fixtures.moves.count)]
      var item = state.items[Int(id)]
      switch step {
      case .nudge(let dLongitude, let dLatitude):
        item.longitude = min(180, max(-180, item.longitude + dLongitude))
        item.latitude = min(90, max(-90, item.latitude + dLatitude))
      case .jump(let other):
        item.longitude = state.items[Int(other)].longitude
        item.latitude = state.items[Int(other)].latitude
      }
      state.items[Int(id)] = item
      blackHole(try state.index.upsert(item))
    }
  } setup: {
    try Fixtures.requireData()
    _ = Fixtures.moves
    return WriteState(
      index: try GeoIndex(items: Fixtures.realisticItems), items: Fixtures.realisticItems)
  }

  // MARK: Queries and baselines, on the realistic points and on the uniform control

  registerQueries(
    suffix: "", index: { Fixtures.realisticIndex }, circles: { Fixtures.circleIndex },
    queries: Fixtures.queries, cityQueries: Fixtures.cityQueries,
    viewport: (Fixtures.viewportWidth, Fixtures.viewportHeight), flatScan: { Fixtures.flatScan },
    rtree: { try Fixtures.sqliteRTree.get() })
  registerQueries(
    suffix: " uniform", index: { Fixtures.uniformIndex }, circles: { Fixtures.uniformCircleIndex },
    queries: Fixtures.uniformQueries, cityQueries: Fixtures.uniformQueries,
    viewport: (Fixtures.uniformViewportWidth, Fixtures.uniformViewportHeight),
    flatScan: { Fixtures.uniformFlatScan }, rtree: { try Fixtures.uniformSQLiteRTree.get() })
}

/// Registers the query benchmarks and their baselines on one dataset; `suffix` tells the
/// datasets' names apart ("" for realistic, " uniform" for the control). On uniform data the
/// "city" queries are uniform too: it has no dense place.
func registerQueries(
  suffix: String, index: @escaping () -> GeoIndex, circles: @escaping () -> GeoIndex,
  queries: @autoclosure @escaping () -> [Coordinate],
  cityQueries: @autoclosure @escaping () -> [Coordinate], viewport: (Double, Double),
  flatScan: @escaping () -> FlatScan, rtree: @escaping () throws -> SQLiteRTree
) {
  for km in [1, 10] {
    let radius = Double(km) * 1000
    queryBenchmark("Radius \(km) km\(suffix)", points: cityQueries(), countsResults: true) {
      let searcher = index().makeSearcher()
      return { p in
        let hits = searcher.radius(longitude: p.longitude, latitude: p.latitude, radius: radius)
        blackHole(hits)
        return hits.count
      }
    }
  }

  for k in [1, 10, 100] {
    queryBenchmark("kNN k=\(k)\(suffix)", points: queries()) {
      let searcher = index().makeSearcher()
      return { p in
        let hits = searcher.nearest(longitude: p.longitude, latitude: p.latitude, k: k)
        blackHole(hits)
        return hits.count
      }
    }
  }

  // About 100 items per box on 1M points: see Fixtures.viewportWidth for how it was sized.
  queryBenchmark("Viewport ~100 items\(suffix)", points: queries(), countsResults: true) {
    let searcher = index().makeSearcher()
    return { p in
      let hits = searcher.box(Fixtures.box(around: p, width: viewport.0, height: viewport.1))
      blackHole(hits)
      return hits.count
    }
  }

  // The whole world at zoom 3: the same query every time, so no query points; 1-2 ms, so one
  // query per iteration.
  let world = GeoBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90)
  Benchmark(
    "Clusters world z3\(suffix)",
    configuration: .init(metrics: queryMetrics + [results], scalingFactor: .one)
  ) { (benchmark, searcher: GeoSearcher) in
    var markers = 0
    for _ in benchmark.scaledIterations {
      let clusters = searcher.clusters(in: world, zoom: 3)
      blackHole(clusters)
      markers += clusters.count
    }
    benchmark.measurement(results, markers)
  } setup: {
    try Fixtures.requireData()
    return index().makeSearcher()
  }

  // A city screen (0.44° × 0.22°) at zoom 12 around points of the densest city: 0.1-0.5 ms, so
  // one query per iteration.
  queryBenchmark(
    "Clusters city z12\(suffix)", points: cityQueries(), scaling: .one, countsResults: true
  ) {
    let searcher = index().makeSearcher()
    return { p in
      let clusters = searcher.clusters(
        in: Fixtures.box(
          around: p, width: Fixtures.cityScreenWidth, height: Fixtures.cityScreenHeight),
        zoom: 12)
      blackHole(clusters)
      return clusters.count
    }
  }

  // Photo pins (N circles of 50 m to 1 km) whose circle holds the query point.
  queryBenchmark("Circles containing point\(suffix)", points: queries(), countsResults: true) {
    let searcher = circles().makeSearcher()
    return { p in
      let hits = searcher.circlesContaining(longitude: p.longitude, latitude: p.latitude)
      blackHole(hits)
      return hits.count
    }
  }

  // MARK: Baselines, same points and queries

  // Brute force: milliseconds per query, so one query per iteration.
  queryBenchmark("Baseline brute force kNN k=10\(suffix)", points: queries(), scaling: .one) {
    let flat = flatScan()
    return { p in
      let hits = flat.nearest(longitude: p.longitude, latitude: p.latitude, k: 10)
      blackHole(hits)
      return hits.count
    }
  }

  // SQLite R*Tree: its k nearest take 0.1-0.2 ms (one query per iteration), its radius tens of µs.
  queryBenchmark("Baseline SQLite rtree kNN k=10\(suffix)", points: queries(), scaling: .one) {
    let rtree = try rtree()
    return { p in
      let hits = try! rtree.nearest(longitude: p.longitude, latitude: p.latitude, k: 10)
      blackHole(hits)
      return hits.count
    }
  }

  queryBenchmark(
    "Baseline SQLite rtree radius 1 km\(suffix)", points: cityQueries(), countsResults: true
  ) {
    let rtree = try rtree()
    return { p in
      let hits = try! rtree.radius(longitude: p.longitude, latitude: p.latitude, radius: 1000)
      blackHole(hits)
      return hits.count
    }
  }
}

/// Builds the index `scaledIterations` times, timed; the indexes are freed after the measurement.
func timedBuilds(_ benchmark: Benchmark, _ items: [Item]) throws {
  var built = [GeoIndex]()
  built.reserveCapacity(benchmark.scaledIterations.count)
  benchmark.startMeasurement()
  for _ in benchmark.scaledIterations { built.append(try GeoIndex(items: items)) }
  benchmark.stopMeasurement()
  blackHole(built)
}

/// Registers a query benchmark: `prepare` runs in the setup (building the fixtures it touches)
/// and returns the query, which is then run once per operation on the next query point,
/// cycling through `points`. The query returns its number of results; with `countsResults`, the
/// mean is reported as the `results` metric.
func queryBenchmark(
  _ name: String, points: @autoclosure @escaping () -> [Coordinate],
  scaling: BenchmarkScalingFactor = .kilo,
  countsResults: Bool = false, prepare: @escaping () throws -> (Coordinate) -> Int
) {
  Benchmark(
    name,
    configuration: .init(
      metrics: countsResults ? queryMetrics + [results] : queryMetrics, scalingFactor: scaling)
  ) { (benchmark, loop: QueryLoop) in
    var total = 0
    for _ in benchmark.scaledIterations {
      total &+= loop.query(loop.points[loop.next(loop.points.count)])
    }
    blackHole(total)
    if countsResults { benchmark.measurement(results, total) }
  } setup: {
    try Fixtures.requireData()
    return QueryLoop(points: points(), query: try prepare())
  }
}

/// A query and the points it is asked from, with a cursor that carries over from one iteration
/// to the next.
final class QueryLoop {
  let points: [Coordinate]
  let query: (Coordinate) -> Int
  private var cursor = 0

  init(points: [Coordinate], query: @escaping (Coordinate) -> Int) {
    precondition(!points.isEmpty, "no query points")
    self.points = points
    self.query = query
  }

  @inline(__always)
  func next(_ count: Int) -> Int {
    let i = cursor
    cursor = i + 1 == count ? 0 : i + 1
    return i
  }
}

/// A write benchmark's own index (and, for moves, where each item is now), with a cursor into
/// the precomputed writes.
final class WriteState {
  let index: GeoIndex
  var items: [Item]
  private var cursor = 0

  init(index: GeoIndex, items: [Item] = []) {
    self.index = index
    self.items = items.map { $0 }  // a copy of its own, so that the first move does not copy
  }

  @inline(__always)
  func next(_ count: Int) -> Int {
    let i = cursor
    cursor = i + 1 == count ? 0 : i + 1
    return i
  }

  /// The next `length` positions in an array of `count`, wrapping around.
  func next(_ count: Int, _ length: Int) -> [Int] {
    (0..<length).map { _ in next(count) }
  }
}
