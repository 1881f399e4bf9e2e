import Commands
import Datasets
import Foundation
import Geodesy
import Keyspace
import NIOCore

/// The data the command benchmarks run on: the keyspace `cardatlas bench load` fills (the same
/// key, the same seeded points, named the same way), and requests encoded as clients send them.
///
/// Every fixture is a `static let`: built on first use and then shared. package-benchmark runs
/// each benchmark in a process of its own, so a benchmark builds only what it touches; its setup
/// closure touches it, so that no building is timed.
enum Fixtures {
  /// The number of points in the key: `CARDATLAS_BENCH_POINTS`, default 1,000,000.
  static let pointCount: Int = {
    let name = "CARDATLAS_BENCH_POINTS"
    guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else {
      return 1_000_000
    }
    guard let n = Int(text.filter { $0 != "_" && $0 != "," }), n > 0 else {
      fatalError("\(name) must be a positive whole number, got \"\(text)\"")
    }
    return n
  }()

  /// Requests in each varied pool (search centres, moves); each benchmark cycles through its pool.
  static let requestCount = 10_000

  /// The seed of the points, the centres and the moves (`cardatlas bench load` defaults to 1).
  static let seed: UInt64 = 1

  /// The key `cardatlas bench load` loads and searches.
  static let key = "bench:points"

  /// Where the fixed-centre searches search from (Tokyo).
  static let centre = Coordinate(longitude: 139.6917, latitude: 35.6895)

  /// The generator over `data/cities.csv`, or why it could not be made (no data folder: set
  /// `CARDATLAS_DATA`). Setup closures call `requireData()` so that this surfaces as a benchmark
  /// error rather than a crash.
  static let generatorResult = Result { () throws(DatasetError) in try DatasetGenerator() }

  static func requireData() throws { _ = try generatorResult.get() }

  static var generator: DatasetGenerator {
    switch generatorResult {
    case .success(let generator): return generator
    case .failure(let error): fatalError("\(error)")
    }
  }

  // MARK: Data

  /// N points clustered around real cities, as `PointSet.realistic(count:seed:generator:)` draws
  /// them.
  static let generated: [Coordinate] = generator.realistic(count: pointCount, seed: seed)

  /// The points as the server holds them after `cardatlas bench load` has sent them with 7
  /// decimals: the doubles it parses from its GEOADDs.
  static let points: [Coordinate] = generated.map {
    Coordinate(longitude: sent($0.longitude), latitude: sent($0.latitude))
  }

  /// Search centres drawn like the points (`PointSet.queryCentres(count:seed:generator:)`).
  static let centres: [Coordinate] = generator.queryPoints(count: requestCount, seed: seed)

  /// A command processor over a keyspace holding the N points as the GEO key `key` in database
  /// 0, members `p0`, `p1`, … in order, as `cardatlas bench load` names them. Filled the way the
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
    return CommandProcessor(keyspace: keyspace, environment: BenchmarkEnvironment())
  }()

  /// A command processor over an empty keyspace, for the commands that touch no data.
  static let emptyProcessor = CommandProcessor(
    keyspace: Keyspace(), environment: BenchmarkEnvironment())

  // MARK: Requests

  /// `GEOSEARCH bench:points FROMLONLAT lon lat BYRADIUS r km ASC COUNT 10`, as
  /// `cardatlas bench load --workload radius` sends it, with `extra` options at the end.
  static func search(from c: Coordinate, radiusKm: Int, extra: [String] = []) -> ByteBuffer {
    encode(
      [
        "GEOSEARCH", key, "FROMLONLAT", number(c.longitude), number(c.latitude), "BYRADIUS",
        String(radiusKm), "km", "ASC", "COUNT", "10",
      ] + extra)
  }

  /// `GEOADD bench:points lon lat p<i>` moves, as `cardatlas bench load --workload add` makes
  /// them (`RequestPool.moves`, same seed and stream): random members each moved up to 100 m,
  /// the first half by +d, the second half the same members by −d, so that cycling through the
  /// pool always really moves members.
  static let moves: [ByteBuffer] = {
    var rng = SeededGenerator(seed: seed, stream: 0x4D4F_5645_53)  // "MOVES"
    let half = (requestCount + 1) / 2
    var firsts: [ByteBuffer] = []
    var seconds: [ByteBuffer] = []
    let metresPerDegree = 111_195.0
    for _ in 0..<half {
      let member = rng.nextInt(below: pointCount)
      let distance = 100 * rng.nextDouble()
      let bearing = 2 * Double.pi * rng.nextDouble()
      let longitude = generated[member].longitude
      let latitude = generated[member].latitude
      let dLat = distance * cos(bearing) / metresPerDegree
      let dLon = distance * sin(bearing) / (metresPerDegree * max(0.01, cos(latitude * .pi / 180)))
      for sign in [1.0, -1.0] {
        let lon = min(180, max(-180, longitude + sign * dLon))
        let lat = min(85.05112878, max(-85.05112878, latitude + sign * dLat))
        let request = encode(["GEOADD", key, number(lon), number(lat), "p\(member)"])
        if sign > 0 { firsts.append(request) } else { seconds.append(request) }
      }
    }
    return Array((firsts + seconds).prefix(requestCount))
  }()

  /// A RESP multibulk frame, as clients send commands (`CommandEncoding.write` in LoadGen).
  static func encode(_ arguments: [String]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeString("*\(arguments.count)\r\n")
    for argument in arguments {
      buffer.writeString("$\(argument.utf8.count)\r\n\(argument)\r\n")
    }
    return buffer
  }

  /// A number as `cardatlas bench load` sends it (`CommandEncoding.number`): fixed notation, at
  /// most 7 decimals, trailing zeros dropped.
  static func number(_ value: Double) -> String {
    let decimals = 7
    let factor: UInt64 = 10_000_000
    let units = UInt64((abs(value) * Double(factor)).rounded())
    var text = units == 0 || value >= 0 ? "" : "-"
    text += String(units / factor)
    var fraction = units % factor
    if fraction != 0 {
      var digits = decimals
      while fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
      }
      let raw = String(fraction)
      text += "." + String(repeating: "0", count: digits - raw.count) + raw
    }
    return text
  }

  /// The double a server parses from `number(value)`: the 7-decimal rounding, divided back
  /// exactly as `Arguments.double` (and strtod) reads it.
  static func sent(_ value: Double) -> Double { (value * 1e7).rounded() / 1e7 }
}

/// The server-wide things a few commands (INFO, CLIENT, CONFIG, BACKUP) report or change: none
/// of the benchmarked commands asks for them, so they are empty. No password, as with
/// `cardatlas serve` and no `--requirepass`.
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
}
