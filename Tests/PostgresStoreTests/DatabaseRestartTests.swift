import Foundation
import PostgresNIO
import PostgresStore
import RedisTestSupport
import Synchronization
import Testing

/// Nodes writing while their database crashes and starts again (`scripts/test-postgres-pair.sh
/// restart`: the primary stopped with `-m immediate`, as a power loss would, then started).
@Suite("The database restarted under writers", .serialized)
struct DatabaseRestartTests {
  @Test(
    "the database killed and started again while two nodes take GEOADDs: every acknowledged write is in the database and on both nodes, nothing is there twice, writes during the outage wait for it or answer TRYAGAIN (never another error), and the nodes go on without a restart"
  )
  func restartedUnderWriters() async throws {
    _ = try #require(TestDatabase.server, "CARDATLAS_POSTGRES_URL is not set")
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-restart-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clusters = "/tmp/cardatlas-pair-" + UUID().uuidString.prefix(8)
    let (primary, standby) = (
      try RedisProcess.freeLoopbackPort(), try RedisProcess.freeLoopbackPort()
    )
    _ = try FailoverTests.pair(["start", clusters, "\(primary)", "\(standby)"])
    defer { _ = try? FailoverTests.pair(["stop", clusters]) }
    let url = "postgresql://postgres@127.0.0.1:\(primary)/cardatlas?sslmode=disable"
    let nodes = try (0..<2).map {
      try CardAtlasProcess(directory: directory + "/\($0)", arguments: ["--store", url])
    }
    let acknowledged = Mutex<[String]>([])
    let refusals = Mutex<[String: Int]>([:])
    let stop = Atomic<Bool>(false)
    let finished = Atomic<Int>(0)
    let ports = nodes.map(\.port)
    let threads = (0..<4).map { w in
      Thread {
        defer { finished.add(1, ordering: .relaxed) }
        guard let connection = try? RESPConnection(port: ports[w % 2], timeoutSeconds: 60)
        else { return }
        // Not `for i in 0... where !stop`: that filters an endless range, and never ends.
        var i = 0
        while !stop.load(ordering: .relaxed) {
          defer { i += 1 }
          let member = "w\(w)-\(i)"
          let lon = String(Double(i % 360) - 179.5)
          guard let reply = try? connection.command("GEOADD", "fleet", lon, "10", member).text
          else { return }
          if reply == ":1\r\n" {
            acknowledged.withLock { $0.append(member) }
          } else {
            let kind = String(reply.prefix { $0 != " " })
            refusals.withLock { $0[kind, default: 0] += 1 }
          }
        }
      }
    }
    for thread in threads { thread.start() }
    try await Task.sleep(for: .seconds(2))
    let beforeRestart = acknowledged.withLock { $0.count }
    let restarted = ContinuousClock.now
    try FailoverTests.pair(["restart", clusters])
    let back = ContinuousClock.now - restarted
    try await Task.sleep(for: .seconds(5))
    stop.store(true, ordering: .relaxed)
    let stopped = ContinuousClock.now
    for _ in 0..<1200 where finished.load(ordering: .relaxed) < threads.count {
      try await Task.sleep(for: .milliseconds(50))
    }
    let drained = ContinuousClock.now - stopped
    let acked = Set(acknowledged.withLock { $0 })
    let said = refusals.withLock { $0 }
    print(
      "database restart: \(beforeRestart) GEOADDs acknowledged before, \(acked.count) in all; "
        + "refused: \(said); the database was back in \(back), the writers' last replies came "
        + "\(drained) after they were told to stop")
    #expect(beforeRestart > 0 && acked.count > beforeRestart, "writes went on after the restart")
    #expect(said.keys.allSatisfy { $0 == "-TRYAGAIN" }, "\(said)")
    #expect(nodes.allSatisfy { $0.isRunning }, "no node had to start again")
    let database = TestDatabase(location: try PostgresLocation(url: url))
    let rows = try await database.connect { connection in
      try await connection.query(
        "SELECT convert_from(member, 'UTF8') FROM geo_members", logger: TestDatabase.logger
      ).collect().map { try $0.decode(String.self) }
    }
    let stored = Set(rows)
    #expect(rows.count == stored.count, "no member twice")
    #expect(acked.subtracting(stored).isEmpty, "lost: \(acked.subtracting(stored).prefix(10))")
    // Both nodes hold what the database holds, once quiet.
    var held: [Set<String>] = []
    for _ in 0..<400 {
      held = try ports.map { port in
        Set(
          try RESPConnection(port: port).command("ZRANGE", "fleet", "0", "-1").text
            .split(separator: "\r\n").filter { !$0.hasPrefix("*") && !$0.hasPrefix("$") }
            .map(String.init))
      }
      if held.allSatisfy({ $0 == stored }) { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(
      held.count == 2 && held.allSatisfy { $0 == stored },
      "\(held.map(\.count)) members on the nodes, \(stored.count) stored")
  }
}
