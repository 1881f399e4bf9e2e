import BenchmarkData
import Datasets
import Foundation
import Geodesy
import IndexBaselines
import SpatialIndex

/// The data the benchmarks run on, built the way `IndexWorkload.realistic(points:queries:seed:)`
/// builds it for `cardatlas-bench index` (same seed, so the same points and queries).
///
/// Every fixture is a `static let`: built on first use and then shared. package-benchmark runs
/// each benchmark in a process of its own, so a benchmark builds only what it touches; its setup
/// closure touches it, so that no building is timed.
enum Fixtures {
  static var pointCount: Int { BenchmarkData.pointCount }

  /// Query points per query set; each benchmark cycles through its set.
  static let queryCount = 10_000

  static var seed: UInt64 { BenchmarkData.seed }

  static func requireData() throws { try BenchmarkData.requireData() }

  static var generator: DatasetGenerator { BenchmarkData.generator }

  // MARK: Points

  /// N points clustered around real cities, ids 0..<N.
  static let realisticItems: [Item] = items(generator.realistic(count: pointCount, seed: seed))

  /// N points uniform on the sphere, ids 0..<N: the control.
  static let uniformItems: [Item] = items(DatasetGenerator.uniform(count: pointCount, seed: seed))

  /// N photo pins placed like the realistic points (another seed): the circles-holding-a-point
  /// dataset.
  static let circleItems: [Item] = pins(generator.realistic(count: pointCount, seed: seed &+ 1))

  /// N photo pins uniform on the sphere (another seed): the control.
  static let uniformCircleItems: [Item] = pins(
    DatasetGenerator.uniform(count: pointCount, seed: seed &+ 2))

  /// Pins at the given places with seeded view radii of 50 m to 1 km, ids 0..<count.
  private static func pins(_ coordinates: [Coordinate]) -> [Item] {
    var rng = SeededGenerator(seed: seed, stream: 99)
    return coordinates.enumerated().map { i, c in
      Item(
        id: ItemID(i), longitude: c.longitude, latitude: c.latitude,
        radius: Float(50 + 950 * rng.nextDouble()), attributes: 1)
    }
  }

  private static func items(_ coordinates: [Coordinate]) -> [Item] {
    coordinates.enumerated().map { i, c in
      Item(id: ItemID(i), longitude: c.longitude, latitude: c.latitude, attributes: 1)
    }
  }

  // MARK: Queries

  /// Query points distributed like the realistic data: people ask from where people are.
  static let queries: [Coordinate] = generator.queryPoints(count: queryCount, seed: seed)

  /// Query points around the densest city (Shanghai in the bundled data), for radius queries.
  static let cityQueries: [Coordinate] = generator.points(
    near: generator.densestCity, count: queryCount, seed: seed)

  /// Query points uniform on the sphere (another seed than the uniform data), for the control.
  static let uniformQueries: [Coordinate] = DatasetGenerator.uniform(
    count: queryCount, seed: seed &+ 1)

  // MARK: Indexes (read-only: the write benchmarks build their own)

  // Generated items are always valid, so building cannot throw.
  static let realisticIndex = try! GeoIndex(items: realisticItems)
  static let uniformIndex = try! GeoIndex(items: uniformItems)
  static let circleIndex = try! GeoIndex(items: circleItems)
  static let uniformCircleIndex = try! GeoIndex(items: uniformCircleItems)

  // MARK: Baselines, on the same points

  static let flatScan = FlatScan(items: realisticItems)

  static let sqliteRTree: Result<SQLiteRTree, any Error> = Result {
    try SQLiteRTree(items: realisticItems)
  }

  static let uniformFlatScan = FlatScan(items: uniformItems)

  static let uniformSQLiteRTree: Result<SQLiteRTree, any Error> = Result {
    try SQLiteRTree(items: uniformItems)
  }

  // MARK: Writes

  /// Fresh items to insert: placed like the data (another seed), with ids N, N+1... that the
  /// index does not hold yet.
  static let insertions: [Item] = {
    let count = min(pointCount, 100_000)
    return generator.realistic(count: count, seed: seed &+ 2).enumerated().map { i, c in
      Item(
        id: ItemID(pointCount + i), longitude: c.longitude, latitude: c.latitude, attributes: 1)
    }
  }()

  /// The ids 0..<N in a seeded random order, for deletes and moves.
  static let shuffledIDs: [ItemID] = {
    var rng = SeededGenerator(seed: seed, stream: 7)
    var ids = (0..<pointCount).map { ItemID($0) }
    for i in stride(from: ids.count - 1, to: 0, by: -1) {
      ids.swapAt(i, rng.nextInt(below: i + 1))
    }
    return ids
  }()

  /// One move: which item, and where to, relative to where it is when the move is made.
  enum Step: Sendable {
    /// A small displacement in degrees: up to about 100 m each way.
    case nudge(dLongitude: Double, dLatitude: Double)
    /// A jump to where another item is (a different city, most of the time).
    case jump(to: ItemID)
  }

  /// N moves, one per item in `shuffledIDs` order: 90 % of them nudges of under about 100 m in
  /// each direction, 10 % jumps to another item's position.
  static let moves: [(id: ItemID, step: Step)] = {
    var rng = SeededGenerator(seed: seed, stream: 8)
    return shuffledIDs.map { id in
      if rng.nextInt(below: 10) == 0 {
        return (id, .jump(to: ItemID(rng.nextInt(below: pointCount))))
      }
      // 0.001° of latitude is 111 m; of longitude, 111 m × cos(latitude).
      return (
        id,
        .nudge(
          dLongitude: (rng.nextDouble() - 0.5) * 0.002, dLatitude: (rng.nextDouble() - 0.5) * 0.0018
        )
      )
    }
  }()

  // MARK: Boxes

  /// The viewport benchmark's box: 0.104° of longitude by 0.0624° of latitude, centred on a
  /// query point. Measured on the default dataset (1,000,000 realistic points, seed 1) over the
  /// 10,000 query points: 103 items per box on average (median 57, 90th percentile 243). The box
  /// is fixed, so on 100,000 points it holds about 10 on average; the benchmark's "results"
  /// metric shows the mean of the run.
  static let viewportWidth = 0.104
  static let viewportHeight = 0.0624
  /// On 1M uniform points (about 24 a square degree at the equator), 2.84° × 1.71° holds a
  /// median of about 100 (`cardatlas-bench index --dataset uniform` sizes it the same way).
  static let uniformViewportWidth = 2.844
  static let uniformViewportHeight = 1.706

  /// A 1280 × 800 pixel screen at zoom 12 (256-pixel tiles; the height shrunk by 0.8 for the
  /// Mercator stretch at Shanghai's latitude): 0.439° × 0.220°, as in `cardatlas-bench index`.
  static let cityScreenWidth = 1280.0 / 256 * 360 / 4096
  static let cityScreenHeight = 800.0 / 256 * 360 / 4096 * 0.8

  static func box(around c: Coordinate, width: Double, height: Double) -> GeoBox {
    GeoBox(
      minLongitude: max(-180, c.longitude - width / 2),
      minLatitude: max(-90, c.latitude - height / 2),
      maxLongitude: min(180, c.longitude + width / 2), maxLatitude: min(90, c.latitude + height / 2)
    )
  }
}
