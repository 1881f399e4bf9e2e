import Foundation
import RedisTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 23: a key loaded as fast as the server accepts it must not be left with writes waiting
/// in its index's overflow (scanned linearly by every search) once the load ends.
@Suite("Index after a bulk load", .serialized)
struct BulkLoadIndexTests {
  /// Points in GEOADDs of `batch` members, sent through `pipes` connections at once.
  static let points = 200_000
  static let batch = 1_000
  static let pipes = 4

  /// 40 places the members cluster around, as map data does.
  static let cities: [(Double, Double)] = {
    var random = Random(23)
    return (0..<40).map { _ in (random.uniform(-180, 180), random.uniform(-60, 70)) }
  }()

  /// The load: members near the cities (a 1 km search finds about a dozen).
  static func commands(seed: UInt64) -> String {
    var random = Random(seed)
    var out = ""
    for b in 0..<(points / batch) {
      out += "GEOADD bulk"
      for i in 0..<batch {
        let (lon, lat) = random.near(cities[random.index(cities.count)])
        out += " \(lon) \(lat) m\(b * batch + i)"
      }
      out += "\n"
    }
    return out
  }

  @Test(
    "after a redis-cli --pipe load, the overflow drains with no further write and searches run as fast as after a restart"
  )
  func bulkLoadDrains() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-bulk-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // Four redis-cli --pipe at once: the server's loops parse and apply them side by side, faster
    // than one connection feeds it.
    let input = Self.commands(seed: 1).split(separator: "\n")
    let parts = (0..<Self.pipes).map { p in
      let path = directory + "-\(p).txt"
      let lines = input[(p * input.count / Self.pipes)..<((p + 1) * input.count / Self.pipes)]
      try? (lines.joined(separator: "\n") + "\n").write(
        toFile: path, atomically: false, encoding: .utf8)
      return path
    }
    defer { for path in parts { try? FileManager.default.removeItem(atPath: path) } }
    for attempt in 0..<3 {
      let fresh = directory + "-\(attempt)"
      defer {
        try? FileManager.default.removeItem(atPath: fresh)
        try? FileManager.default.removeItem(atPath: fresh + "-restarted")
      }
      let loaded = try CardAtlasProcess(directory: fresh)
      let started = Date()
      let port = loaded.port
      let outputs = Mutex<[(String, Int32)]>([])
      let finished = DispatchGroup()
      for part in parts {
        finished.enter()
        Thread {
          let result = (try? Self.pipe(part, port: port)) ?? ("redis-cli did not run", -1)
          outputs.withLock { $0.append(result) }
          finished.leave()
        }.start()
      }
      finished.wait()
      for (output, status) in outputs.withLock({ $0 }) {
        #expect(status == 0, "redis-cli --pipe: \(output)")
        #expect(output.contains("errors: 0, replies: \(Self.points / Self.batch / Self.pipes)"))
      }
      let load = Date().timeIntervalSince(started)

      // No write from here on: the index must drain on its own.
      let connection = try RESPConnection(port: loaded.port)
      var index = try Self.indexInfo(connection)
      let afterLoad = index
      let deadline = Date().addingTimeInterval(60)
      while index.overflow != 0 && Date() < deadline {
        usleep(50_000)
        index = try Self.indexInfo(connection)
      }
      #expect(index.members == Self.points)
      #expect(index.overflow == 0, "overflow after 60 s without a write: \(index)")

      // The same data in a server started on it: the tree built in one pass.
      try FileManager.default.createDirectory(
        atPath: fresh + "-restarted", withIntermediateDirectories: true)
      #expect(
        try connection.command("BACKUP", fresh + "-restarted/cardatlas.sqlite").text == "+OK\r\n")
      let restarted = try CardAtlasProcess(directory: fresh + "-restarted")
      let other = try RESPConnection(port: restarted.port)
      #expect(try Self.indexInfo(other).members == Self.points)

      // The rate per second of the server's own CPU time, which the other work on the machine
      // (other tests run meanwhile) barely changes, where it changed the rate per second of
      // wall time by up to a third. Timed once both are idle, so that neither's rounds carry
      // work left from the load or the start; the best of 40 alternating rounds (a clean run's
      // best of 20 came out once at 0.69, then 1.01 and 0.97, on this shared host).
      let waiting = Date()
      loaded.waitUntilIdle()
      let settled = Date().timeIntervalSince(waiting)
      restarted.waitUntilIdle()
      let searches = Self.searches(seed: UInt64(100 + attempt))
      var best = (loaded: Double.infinity, restarted: Double.infinity)
      for _ in 0..<40 {
        best.loaded = min(best.loaded, try Self.time(searches, on: connection, server: loaded))
        best.restarted = min(
          best.restarted, try Self.time(searches, on: other, server: restarted))
      }
      let ratio = best.restarted / best.loaded
      print(
        "bulk load \(attempt): loaded in \(String(format: "%.1f", load)) s, then \(afterLoad); "
          + "drained to \(index); idle after \(String(format: "%.2f", settled)) s; "
          + "1 km searches per CPU second "
          + "\(Int(Double(Self.searchCount) / best.loaded)) against "
          + "\(Int(Double(Self.searchCount) / best.restarted)) restarted "
          + "(\(String(format: "%.2f", ratio))x)")
      #expect(ratio >= 0.9, "searches after the load ran at \(ratio)x a restarted server's")
    }
  }

  static let searchCount = 200

  /// GEOSEARCHes of 1 km around points drawn like the members.
  static func searches(seed: UInt64) -> [UInt8] {
    var centres = Random(seed)
    var out: [UInt8] = []
    for _ in 0..<searchCount {
      let (lon, lat) = centres.near(cities[centres.index(cities.count)])
      out += RESPConnection.frame([
        "GEOSEARCH", "bulk", "FROMLONLAT", "\(lon)", "\(lat)", "BYRADIUS", "1", "km", "ASC",
      ])
    }
    return out
  }

  /// CPU seconds the server spends answering the searches, sent pipelined.
  static func time(
    _ searches: [UInt8], on connection: RESPConnection, server: CardAtlasProcess
  ) throws -> Double {
    let started = server.cpuNanoseconds()
    try connection.send(searches)
    for _ in 0..<searchCount {
      guard case .array = try connection.reply().value else {
        throw RESPConnection.Failed(description: "a search failed")
      }
    }
    return Double(server.cpuNanoseconds(since: started)) / 1e9
  }

  struct IndexInfo: CustomStringConvertible {
    var members = -1
    var overflow = -1
    var rebuilds = -1
    var description: String { "members \(members), overflow \(overflow), rebuilds \(rebuilds)" }
  }

  /// The `bulk` key's line in INFO's index section.
  static func indexInfo(_ connection: RESPConnection) throws -> IndexInfo {
    guard case .bulkString(let buffer) = try connection.command("INFO", "index").value else {
      throw RESPConnection.Failed(description: "INFO did not answer a bulk string")
    }
    var info = IndexInfo()
    let text = String(buffer: buffer)
    for line in text.split(separator: "\r\n") where line.hasPrefix("index_db0_bulk:") {
      for field in line.dropFirst("index_db0_bulk:".count).split(separator: ",") {
        let parts = field.split(separator: "=")
        guard parts.count == 2, let value = Int(parts[1]) else { continue }
        switch parts[0] {
        case "members": info.members = value
        case "overflow": info.overflow = value
        case "rebuilds": info.rebuilds = value
        default: break
        }
      }
    }
    return info
  }

  /// Runs `redis-cli --pipe` with the commands in `path` on its standard input.
  static func pipe(_ path: String, port: UInt16) throws -> (String, Int32) {
    guard let executable = RedisProcess.executable("redis-cli") else {
      throw RedisProcess.NotInstalled()
    }
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = ["-p", String(port), "--pipe"]
    process.standardInput = FileHandle(forReadingAtPath: path)
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
  }

  /// A small seeded generator (SplitMix64), so every run loads the same points.
  struct Random {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }

    mutating func uniform(_ low: Double, _ high: Double) -> Double {
      low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    mutating func index(_ count: Int) -> Int { Int(next() % UInt64(count)) }

    /// A point within about 30 km of `centre` (the sum of three uniforms, roughly normal).
    mutating func near(_ centre: (Double, Double)) -> (Double, Double) {
      let dx = (uniform(-1, 1) + uniform(-1, 1) + uniform(-1, 1)) * 0.1
      let dy = (uniform(-1, 1) + uniform(-1, 1) + uniform(-1, 1)) * 0.1
      return (max(-180, min(180, centre.0 + dx)), max(-85, min(85, centre.1 + dy)))
    }
  }
}
