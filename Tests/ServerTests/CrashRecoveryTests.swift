import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every acknowledged write survives SIGKILL, and no command is half there after a restart.
@Suite("Durability across kill -9", .serialized)
struct CrashRecoveryTests {
  /// What one writer had acknowledged when the server died.
  final class Writer: @unchecked Sendable {
    let name: String
    var acknowledged: [(member: String, lon: Double, lat: Double)] = []
    var attempted = 0

    init(name: String) { self.name = name }

    /// GEOADDs of three members at a time (one command, all or nothing), until the server dies.
    func run(port: UInt16, seed: UInt64) {
      guard let connection = try? RESPConnection(port: port) else { return }
      var state = seed
      func next() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
      }
      for i in 0... {
        var args = ["GEOADD", "crash"]
        var batch: [(String, Double, Double)] = []
        for part in ["a", "b", "c"] {
          let lon = -180 + 360 * next()
          let lat = -85 + 170 * next()
          let member = "\(name)-\(i)-\(part)"
          batch.append((member, lon, lat))
          args += [String(lon), String(lat), member]
        }
        attempted += 1
        guard let reply = try? connection.command(args), reply.text == ":3\r\n" else { return }
        acknowledged += batch
      }
    }
  }

  @Test("acknowledged GEOADDs are all there after kill -9 and restart; none half-written")
  func killNine() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-crash-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var expected: [String: (Double, Double)] = [:]
    for round in 0..<3 {
      let server = try CardAtlasProcess(directory: directory)
      // The previous rounds' acknowledged writes are all there, at their positions.
      try Self.check(expected, port: server.port)
      let writers = (0..<6).map { Writer(name: "r\(round)w\($0)") }
      let port = server.port
      let threads = writers.enumerated().map { i, writer in
        Thread { writer.run(port: port, seed: UInt64(round * 100 + i)) }
      }
      for thread in threads { thread.start() }
      try await server.crash(after: .milliseconds(700))
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      let acknowledged = writers.reduce(0) { $0 + $1.acknowledged.count }
      #expect(acknowledged > 0, "writers made progress before the kill")
      for writer in writers {
        for (member, lon, lat) in writer.acknowledged { expected[member] = (lon, lat) }
      }
    }
    let server = try CardAtlasProcess(directory: directory)
    try Self.check(expected, port: server.port)
  }

  @Test(
    "a big write and small writes racing on the same members from four connections: after kill -9 each member is where the server last put it"
  )
  func racingWritesKeepTheirOrder() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-race-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(directory: directory, arguments: ["--threads", "4"])
    let port = server.port
    let episodes = 100
    let barrier = Barrier(parties: 4)
    let acknowledged = Mutex(0)
    // In each episode, on its own key: one connection moves 300 members, m0 among them; three
    // others each move one of m1, m2, m3, at the same moment. A small write that runs just
    // after the big one must stay after it on disk too.
    let threads = (0..<4).map { w in
      Thread {
        guard let connection = try? RESPConnection(port: port) else { return }
        for episode in 0..<episodes {
          var args = ["GEOADD", "race:\(episode)"]
          let members = w == 0 ? Array(0..<300) : [w]
          for member in members { args += [String(w * 10), String(episode % 80), "m\(member)"] }
          barrier.arrive()
          if (try? connection.command(args)) != nil { acknowledged.withLock { $0 += 1 } }
        }
      }
    }
    for thread in threads { thread.start() }
    while threads.contains(where: { !$0.isFinished }) {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect(acknowledged.withLock { $0 } == 4 * episodes)
    let before = try Self.positions(episodes: episodes, port: port)
    try await server.crash(after: .zero)
    let restarted = try CardAtlasProcess(directory: directory)
    let after = try Self.positions(episodes: episodes, port: restarted.port)
    let moved = before.keys.filter { before[$0] != after[$0] }.sorted()
    #expect(moved.isEmpty, "\(moved.count) members moved by the restart: \(moved.prefix(5))")
  }

  /// GEOPOS's reply for m1, m2 and m3 of each episode's key.
  static func positions(episodes: Int, port: UInt16) throws -> [String: String] {
    let connection = try RESPConnection(port: port, timeoutSeconds: 60)
    var found: [String: String] = [:]
    for episode in 0..<episodes {
      let reply = try connection.command("GEOPOS", "race:\(episode)", "m1", "m2", "m3").text
      found["race:\(episode)"] = reply
    }
    return found
  }

  /// Lets threads go on together: each `arrive` waits until all `parties` have arrived.
  final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var waiting = 0
    private var generation = 0

    init(parties: Int) { self.parties = parties }

    func arrive() {
      condition.lock()
      defer { condition.unlock() }
      let mine = generation
      waiting += 1
      if waiting == parties {
        waiting = 0
        generation += 1
        condition.broadcast()
      } else {
        while generation == mine { condition.wait() }
      }
    }
  }

  @Test(
    "a bulk load acknowledged from the journal, ahead of the tables, survives kill -9; after a clean stop the tables hold the last write and ogrinfo reads it"
  )
  func journalAheadOfTables() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-journal-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // The journal's segments, `keyspace.journal.<n>`, in all.
    func journalBytes() throws -> Int {
      try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { $0.hasPrefix("keyspace.journal.") }
        .reduce(0) {
          $0
            + (try FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size]
              as? Int ?? 0)
        }
    }
    let server = try CardAtlasProcess(directory: directory)
    let c = try RESPConnection(port: server.port, timeoutSeconds: 60)
    // 200,000 members: the tables take seconds to catch up, the journal acknowledges at once.
    for chunk in 0..<200 {
      var args = ["GEOADD", "bulk"]
      for i in 0..<1_000 {
        let n = chunk * 1_000 + i
        args += [
          String(Double(n % 3_600) / 10 - 180), String(Double(n % 1_700) / 10 - 85), "m\(n)",
        ]
      }
      #expect(try c.command(args).text == ":1000\r\n")
    }
    try await server.crash(after: .zero)
    #expect(try journalBytes() > 0, "the acknowledged records are in the journal")
    let restarted = try CardAtlasProcess(directory: directory)
    let d = try RESPConnection(port: restarted.port, timeoutSeconds: 60)
    #expect(try d.command("ZCARD", "bulk").text == ":200000\r\n")
    #expect(try journalBytes() == 0, "replayed into the tables and emptied")
    #expect(try d.command("GEOADD", "bulk", "2.3522", "48.8566", "last").text == ":1\r\n")
    restarted.signal(SIGTERM)
    restarted.waitUntilExit()
    #expect(try journalBytes() == 0, "a clean stop leaves everything in the tables")
    let (output, status) = try RedisProcess.run(
      "ogrinfo",
      [
        "-ro", "-q", "-sql",
        "SELECT ST_X(geom) AS x, ST_Y(geom) AS y, (SELECT count(*) FROM geo_members) AS n FROM geo_members WHERE member = CAST('last' AS BLOB)",
        directory + "/cardatlas.sqlite",
      ])
    #expect(status == 0, "\(output)")
    // The point as GEOADD stores it: decoded from its 52-bit geohash, within a metre.
    func value(_ name: String) -> Double? {
      output.split(separator: "\n").first { $0.contains(" \(name) (") }
        .flatMap { $0.split(separator: "=").last }
        .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
    #expect(abs((value("x") ?? 0) - 2.3522) < 1e-5 && abs((value("y") ?? 0) - 48.8566) < 1e-5)
    #expect(value("n") == 200_001, "\(output)")
  }

  /// Every expected member present, and members only in whole triples.
  static func check(_ expected: [String: (Double, Double)], port: UInt16) throws {
    // A restarted debug server reads the whole key back on a busy machine: a minute's bound,
    // not the default 10 s (a full parallel suite beside two sanitizer builds took longer).
    let connection = try RESPConnection(port: port, timeoutSeconds: 60)
    guard case .array(let all) = try connection.command("ZRANGE", "crash", "0", "-1").value else {
      Issue.record("ZRANGE did not answer an array")
      return
    }
    let present = Set(
      all.compactMap { value -> String? in
        if case .bulkString(let b) = value { return String(buffer: b) }
        return nil
      })
    let missing = expected.keys.filter { !present.contains($0) }
    #expect(missing.isEmpty, "acknowledged but lost: \(missing.prefix(5))")
    var triples: [String: Int] = [:]
    for member in present { triples[String(member.dropLast(2)), default: 0] += 1 }
    let partial = triples.filter { $0.value != 3 }
    #expect(partial.isEmpty, "half-written commands: \(partial.prefix(5))")
    // Positions survive too: spot-check a sample against what was acknowledged.
    for (member, (lon, lat)) in expected.prefix(200) {
      guard case .array(let pos) = try connection.command("GEOPOS", "crash", member).value,
        case .array(let xy) = pos.first, xy.count == 2,
        case .bulkString(let x) = xy[0], case .bulkString(let y) = xy[1],
        let gx = Double(String(buffer: x)), let gy = Double(String(buffer: y))
      else {
        Issue.record("no position for \(member)")
        continue
      }
      #expect(abs(gx - lon) < 1e-5 && abs(gy - lat) < 1e-5)
    }
  }
}
