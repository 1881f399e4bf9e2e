import BenchmarkData
import Commands
import Datasets
import Geodesy
import Keyspace
import LoadGen
import NIOCore
import RESPClient

/// The data the command benchmarks run on: the keyspace `cardatlas-bench load` fills (the same
/// key, the same seeded points, named the same way), and requests encoded as clients send them.
///
/// Every fixture is a `static let`: built on first use and then shared. package-benchmark runs
/// each benchmark in a process of its own, so a benchmark builds only what it touches; its setup
/// closure touches it, so that no building is timed.
enum Fixtures {
  static var pointCount: Int { BenchmarkData.pointCount }

  /// Requests in each varied pool (search centres, moves); each benchmark cycles through its pool.
  static let requestCount = 10_000

  static var seed: UInt64 { BenchmarkData.seed }

  /// The key `cardatlas-bench load` loads and searches.
  static let key = "bench:points"

  static func requireData() throws { try BenchmarkData.requireData() }

  static var generator: DatasetGenerator { BenchmarkData.generator }

  // MARK: Data

  /// N points clustered around real cities, as `cardatlas-bench load --points N` sends them.
  static let generated = PointSet.realistic(count: pointCount, seed: seed, generator: generator)

  /// The points as the server holds them after `cardatlas-bench load` has sent them: the
  /// doubles it parses from the text of its GEOADDs.
  static let points: [Coordinate] = zip(generated.longitudes, generated.latitudes).map {
    Coordinate(longitude: sent($0), latitude: sent($1))
  }

  static func sent(_ value: Double) -> Double { Double(CommandEncoding.number(value))! }

  /// Search centres drawn like the points, as the load generator draws them.
  static let centres = PointSet.queryCentres(count: requestCount, seed: seed, generator: generator)

  /// A command processor over a keyspace holding the N points as the GEO key `key` in database
  /// 0, members `p0`, `p1`, … in order, as `cardatlas-bench load` names them. Filled the way the
  /// server loads its store at start-up (`Keyspace.load`: one bulk index build), not by GEOADDs.
  static let processor: CommandProcessor = {
    let keyspace = Keyspace()
    let keyBytes = Bytes(key.utf8)
    // Nothing here throws: only the signature of `add` says it may (for the store's reads).
    try! keyspace.load { add in
      for (i, p) in points.enumerated() {
        guard let score = RedisGeohash.score(longitude: p.longitude, latitude: p.latitude) else {
          fatalError("point \(i) (\(p.longitude), \(p.latitude)) is out of Redis's range")
        }
        try add(
          .geoUpsert(
            db: 0, key: keyBytes, member: Bytes("p\(i)".utf8), score: Double(score),
            longitude: p.longitude, latitude: p.latitude))
      }
    }
    return CommandProcessor(
      keyspace: keyspace, log: MemoryOnly(), environment: BenchmarkEnvironment())
  }()

  /// A command processor over an empty keyspace, for the commands that touch no data.
  static let emptyProcessor = CommandProcessor(
    keyspace: Keyspace(), log: MemoryOnly(), environment: BenchmarkEnvironment())

  // MARK: Requests

  /// `GEOSEARCH bench:points FROMLONLAT lon lat BYRADIUS r km ASC COUNT 10`, as
  /// `cardatlas-bench load --workload radius` sends it, with `extra` options at the end.
  static func search(longitude: Double, latitude: Double, radiusKm: Int, extra: [String] = [])
    -> ByteBuffer
  {
    encode(
      [
        "GEOSEARCH", key, "FROMLONLAT", CommandEncoding.number(longitude),
        CommandEncoding.number(latitude), "BYRADIUS", String(radiusKm), "km", "ASC", "COUNT", "10",
      ] + extra)
  }

  /// The moves `cardatlas-bench load --workload add` sends (same seed and stream): random
  /// members each moved up to 100 m, and half a pool later moved back.
  static let moves: [ByteBuffer] = RequestPool.moves(
    requestCount, key: key, members: generated, seed: seed
  ).map(encode)

  static func encode(_ arguments: [String]) -> ByteBuffer { CommandEncoding.encode([arguments]) }
}

/// The server-wide things a few commands (INFO, CLIENT, CONFIG, BACKUP, pub/sub) report or
/// change: none of the benchmarked commands asks for them, so they are empty. No password, as
/// with `cardatlas serve` and no `--requirepass`.
final class BenchmarkEnvironment: ServerEnvironment {
  var requirePassword: String? { nil }
  func info(sections: [String]) -> String { "" }
  func clientList() -> String { "" }
  func clientInfo(id: Int) -> String { "" }
  func configGet(_ pattern: String) -> [(String, String)] { [] }
  func configSet(_ name: String, _ value: String) -> String? { "ERR not in the benchmarks" }
  func resetStatistics() {}
  func backup(to path: String) throws {}
  func sessionChanged(_ session: Session) {}
  let pubsub = PubSubHub()
}
