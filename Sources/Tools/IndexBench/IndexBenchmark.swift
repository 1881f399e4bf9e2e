import Datasets
import Foundation
import Geodesy
import IndexBaselines
import SpatialIndex
import Synchronization

/// Runs every index operation the issue sets a goal for, plus the baselines, on one workload.
public struct IndexBenchmark {
  public struct Figure: Sendable {
    public var key: String
    public var label: String
    /// Median nanoseconds per operation (for `build`: for all points).
    public var nanoseconds: Double
    /// Mean number of results per query, where that says something.
    public var results: Double?
  }

  public struct Report: Sendable {
    public var points: Int
    public var figures: [Figure]
    public var bytesPerPoint: Double
    /// The same without the bytes holding the ids themselves.
    public var bytesPerPointBeyondID: Double

    public func nanoseconds(_ key: String) -> Double? {
      figures.first { $0.key == key }?.nanoseconds
    }
  }

  let workload: IndexWorkload
  let log: (String) -> Void

  public init(workload: IndexWorkload, log: @escaping (String) -> Void = { _ in }) {
    self.workload = workload
    self.log = log
  }

  public func run() throws -> Report {
    var figures = [Figure]()
    func record(_ key: String, _ label: String, _ ns: Double, results: Double? = nil) {
      figures.append(Figure(key: key, label: label, nanoseconds: ns, results: results))
      log("\(key): \(Int(ns)) ns")
    }
    let items = workload.items
    let n = items.count
    let queries = workload.queries
    let city = workload.cityQueries

    var index: GeoIndex?
    var builds = [Double]()
    for _ in 0..<3 {
      index = nil
      let t0 = now()
      index = try GeoIndex(items: items)
      builds.append(Double(now() - t0))
    }
    record("build", "bulk build, all points", builds.sorted()[1])
    let geo = index!
    let bytesPerPoint = Double(geo.footprint) / Double(max(1, n))
    let bytesPerPointBeyondID = Double(geo.footprint - geo.idFootprint) / Double(max(1, n))
    let s = geo.makeSearcher()

    for k in [1, 10, 100] {
      record(
        "knn\(k)", "k nearest, k = \(k)",
        medianNanoseconds(queries.count) { i in
          consume(s.nearest(longitude: queries[i].longitude, latitude: queries[i].latitude, k: k))
        })
    }
    for (key, r) in [("radius1km", 1000.0), ("radius10km", 10_000.0)] {
      var total = 0
      let ns = medianNanoseconds(city.count, warmup: 0) { i in
        total += s.radius(longitude: city[i].longitude, latitude: city[i].latitude, radius: r).count
      }
      record(
        key, "radius \(Int(r / 1000)) km around the city queries", ns,
        results: Double(total) / Double(city.count))
    }

    let (halfWidth, boxes) = viewports(s)
    var boxHits = 0
    let viewportNs = medianNanoseconds(boxes.count, warmup: 0) { i in
      boxHits += s.box(boxes[i]).count
    }
    record(
      "viewport", String(format: "viewport %.3f° wide", 2 * halfWidth), viewportNs,
      results: Double(boxHits) / Double(boxes.count))

    let world = GeoBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90)
    var markers = 0
    record(
      "clusters_z3", "clusters, whole world at zoom 3",
      medianNanoseconds(30, warmup: 3) { _ in markers = s.clusters(in: world, zoom: 3).count },
      results: Double(markers))
    // A 1280 × 800 pixel screen at zoom 12 around points of the densest city.
    let screenWidth = 1280.0 / 256 * 360 / 4096
    let screenHeight = 800.0 / 256 * 360 / 4096 * 0.8
    var cityMarkers = 0
    record(
      "clusters_z12", "clusters, city screen at zoom 12",
      medianNanoseconds(min(200, city.count), warmup: 10) { i in
        let c = city[i]
        cityMarkers +=
          s.clusters(
            in: GeoBox(
              minLongitude: c.longitude - screenWidth / 2,
              minLatitude: c.latitude - screenHeight / 2,
              maxLongitude: c.longitude + screenWidth / 2,
              maxLatitude: c.latitude + screenHeight / 2),
            zoom: 12
          ).count
      }, results: Double(cityMarkers) / Double(min(200, city.count)))

    let pins = try GeoIndex(items: workload.circles)
    let pinSearcher = pins.makeSearcher()
    var pinHits = 0
    record(
      "circles_at", "circles holding a point (\(workload.circles.count) circles)",
      medianNanoseconds(queries.count, warmup: 0) { i in
        pinHits +=
          pinSearcher.circlesContaining(
            longitude: queries[i].longitude, latitude: queries[i].latitude
          ).count
      }, results: Double(pinHits) / Double(queries.count))

    try measureChanges(geo, record: record)
    measureConcurrency(geo, record: record)

    let flat = FlatScan(items: items)
    record(
      "bruteforce_knn10", "brute force k = 10 (chord scan)",
      medianNanoseconds(min(40, queries.count), warmup: 2) { i in
        consume(flat.nearest(longitude: queries[i].longitude, latitude: queries[i].latitude, k: 10))
      })
    if let rtree = try? SQLiteRTree(items: items) {
      record(
        "sqlite_rtree_knn10", "SQLite R*Tree k = 10 (expanding box)",
        medianNanoseconds(min(1000, queries.count), warmup: 20) { i in
          consume(
            try? rtree.nearest(
              longitude: queries[i].longitude, latitude: queries[i].latitude, k: 10))
        })
      var rtreeHits = 0
      record(
        "sqlite_rtree_radius1km", "SQLite R*Tree radius 1 km around the city queries",
        medianNanoseconds(min(1000, city.count), warmup: 0) { i in
          rtreeHits +=
            (try? rtree.radius(
              longitude: city[i].longitude, latitude: city[i].latitude, radius: 1000))?.count ?? 0
        }, results: Double(rtreeHits) / Double(min(1000, city.count)))
    } else {
      log("SQLite R*Tree baseline unavailable")
    }
    return Report(
      points: n, figures: figures, bytesPerPoint: bytesPerPoint,
      bytesPerPointBeyondID: bytesPerPointBeyondID)
  }

  /// Viewport boxes around query points, sized so that the median box holds about 100 items.
  private func viewports(_ s: GeoSearcher) -> (Double, [GeoBox]) {
    let sample = Array(workload.queries.prefix(300))
    func boxes(_ w: Double, _ points: [Coordinate]) -> [GeoBox] {
      points.map {
        GeoBox(
          minLongitude: max(-180, $0.longitude - w), minLatitude: max(-90, $0.latitude - w * 0.6),
          maxLongitude: min(180, $0.longitude + w), maxLatitude: min(90, $0.latitude + w * 0.6))
      }
    }
    var lo = 1e-5
    var hi = 90.0
    for _ in 0..<40 {
      let mid = (lo * hi).squareRoot()
      let counts = boxes(mid, sample).map { s.box($0).count }.sorted()
      if counts[counts.count / 2] < 100 { lo = mid } else { hi = mid }
    }
    return (hi, boxes(hi, workload.queries))
  }

  /// What readers pay for a writer: k = 10 latency with and without another thread moving
  /// items as fast as it can, and that writer's rate while the reader queries.
  private func measureConcurrency(
    _ geo: GeoIndex, record: (String, String, Double, Double?) -> Void
  ) {
    let items = workload.items
    let queries = workload.queries
    guard !items.isEmpty, !queries.isEmpty else { return }
    let s = geo.makeSearcher()
    let alone = percentileNanoseconds(queries.count) { i in
      consume(s.nearest(longitude: queries[i].longitude, latitude: queries[i].latitude, k: 10))
    }
    record("knn10_p99", "k = 10, 99th percentile, no writer", alone.p99, nil)
    let started = Atomic(false)
    let stop = Atomic(false)
    // The writer's moves, stored once it has stopped; -1 until then.
    let moved = Atomic(-1)
    let writer = Thread {
      var rng = SeededGenerator(seed: 11)
      var count = 0
      started.store(true, ordering: .releasing)
      while !stop.load(ordering: .relaxed) {
        var item = items[rng.nextInt(below: items.count)]
        item.longitude = min(180, max(-180, item.longitude + (rng.nextDouble() - 0.5) * 0.002))
        item.latitude = min(90, max(-90, item.latitude + (rng.nextDouble() - 0.5) * 0.002))
        _ = try? geo.upsert(item)  // generated items are valid
        count += 1
      }
      moved.store(count, ordering: .releasing)
    }
    writer.start()
    // Timed only once the writer runs: on a busy machine it may start after the queries end.
    while !started.load(ordering: .acquiring) { usleep(100) }
    let t0 = now()
    let busy = percentileNanoseconds(queries.count) { i in
      consume(s.nearest(longitude: queries[i].longitude, latitude: queries[i].latitude, k: 10))
    }
    let seconds = Double(now() - t0) / 1e9
    stop.store(true, ordering: .relaxed)
    while moved.load(ordering: .acquiring) < 0 { usleep(100) }
    record("knn10_with_writer", "k = 10 while another thread moves items", busy.median, nil)
    record(
      "knn10_with_writer_p99", "k = 10, 99th percentile, while another thread moves items",
      busy.p99, nil)
    record(
      "move_with_reader", "move, amortized, while another thread queries",
      seconds * 1e9 / Double(max(1, moved.load(ordering: .relaxed))), nil)
  }

  /// Moves (mostly small, some far), removals and re-insertions, amortized over many.
  private func measureChanges(
    _ geo: GeoIndex, record: (String, String, Double, Double?) -> Void
  ) throws {
    let items = workload.items
    let n = items.count
    guard n > 0 else { return }
    var rng = SeededGenerator(seed: 7)
    let moves = (0..<n).map { _ -> Item in
      var item = items[rng.nextInt(below: n)]
      if rng.next() % 10 == 0 {
        let to = items[rng.nextInt(below: n)]
        item.longitude = to.longitude
        item.latitude = to.latitude
      } else {
        // Up to about 100 m in each direction.
        item.longitude = min(180, max(-180, item.longitude + (rng.nextDouble() - 0.5) * 0.002))
        item.latitude = min(90, max(-90, item.latitude + (rng.nextDouble() - 0.5) * 0.002))
      }
      return item
    }
    record(
      "move", "move (upsert of an indexed id), amortized",
      try amortizedNanoseconds(moves.count) { try geo.upsert(moves[$0]) }, nil)
    let churn = min(n, 100_000)
    let victims = (0..<churn).map { _ in ItemID(rng.nextInt(below: n)) }
    var removed = [Item]()
    removed.reserveCapacity(churn)
    for id in victims { if let item = geo.item(id: id) { removed.append(item) } }
    record(
      "delete", "delete, amortized", amortizedNanoseconds(churn) { geo.remove(id: victims[$0]) },
      nil)
    record(
      "insert", "insert, amortized",
      try amortizedNanoseconds(removed.count) { try geo.upsert(removed[$0]) }, nil)
  }
}
