import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RedisTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Nodes on a primary with a synchronous streaming standby (`scripts/test-postgres-pair.sh`),
/// the standby promoted while they write.
@Suite("A standby promoted under writers", .serialized)
struct FailoverTests {
  /// Runs the pair script; what it printed. Spawned and waited for directly: Foundation's
  /// `Process` was seen never to return from `waitUntilExit` once the script had started servers.
  @discardableResult
  static func pair(_ arguments: [String]) throws -> String {
    let log = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-pair-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: log) }
    let command =
      (["scripts/test-postgres-pair.sh"] + arguments).map { "'\($0)'" }.joined(separator: " ")
      + " >'\(log)' 2>&1 </dev/null"
    let words: [String] = ["/bin/sh", "-c", command]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else {
      throw RESPConnection.Failed(description: "could not spawn test-postgres-pair.sh")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    guard status == 0 else {
      throw RESPConnection.Failed(description: "test-postgres-pair.sh \(arguments): \(said)")
    }
    return said
  }

  @Test(
    "the primary killed and its standby promoted while two nodes take GEOADDs: every acknowledged write is on the new primary and on both nodes, which reconnect by the two-host URL (a node that exited is restarted, as a supervisor would); writes during the switch answer TRYAGAIN",
  )
  func standbyPromoted() async throws {
    _ = try #require(TestDatabase.server, "CARDATLAS_POSTGRES_URL is not set")
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-failover-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let clusters = "/tmp/cardatlas-pair-" + UUID().uuidString.prefix(8)
    let (primary, standby) = (
      try RedisProcess.freeLoopbackPort(), try RedisProcess.freeLoopbackPort()
    )
    let url =
      try Self.pair(["start", clusters, "\(primary)", "\(standby)"])
      .split(separator: "\n").last.map(String.init) ?? ""
    defer { _ = try? Self.pair(["stop", clusters]) }
    var nodes = try (0..<2).map {
      try CardAtlasProcess(directory: directory + "/\($0)", arguments: ["--store", url])
    }
    let ports = nodes.map(\.port)
    let writers = GeoaddWriters(4, ports: ports)
    try await Task.sleep(for: .seconds(2))
    let beforeSwitch = writers.acknowledged.withLock { $0.count }
    try Self.pair(["promote", clusters])
    try await Task.sleep(for: .seconds(6))
    _ = try await writers.stop()
    // A node that exited (75: it must load afresh) is started again, as its supervisor would.
    var restarted = 0
    for n in nodes.indices where !nodes[n].isRunning {
      nodes[n] = try CardAtlasProcess(
        directory: directory + "/\(n)", port: ports[n], arguments: ["--store", url])
      restarted += 1
    }
    let acked = Set(writers.acknowledged.withLock { $0 })
    let said = writers.refusals.withLock { $0 }
    print(
      "failover: \(beforeSwitch) GEOADDs acknowledged before the switch, \(acked.count) in all; "
        + "refused: \(said); nodes restarted: \(restarted)")
    #expect(beforeSwitch > 0 && acked.count > beforeSwitch, "writes went on after the switch")
    #expect(said.keys.allSatisfy { $0 == "-TRYAGAIN" }, "\(said)")
    // The new primary holds every acknowledged write.
    let promoted = TestDatabase(
      location: try PostgresLocation(
        url: "postgresql://postgres@127.0.0.1:\(standby)/cardatlas?sslmode=disable"))
    let stored = Set(
      try await promoted.connect { connection in
        try await connection.query(
          "SELECT convert_from(member, 'UTF8') FROM geo_members", logger: TestDatabase.logger
        ).collect().map { try $0.decode(String.self) }
      })
    #expect(acked.subtracting(stored).isEmpty, "lost: \(acked.subtracting(stored).prefix(10))")
    // Both nodes hold what the database holds, once quiet.
    let held = try await writers.held(on: ports, converging: stored)
    let replication = try ports.map {
      try RESPConnection(port: $0).command("INFO", "replication").text
    }
    let converged = held.count == 2 && held.allSatisfy { $0 == stored }
    let extra = held.map { $0.subtracting(stored).sorted() }
    let extraAcked = held.map { $0.subtracting(stored).intersection(acked).sorted() }
    let counts = held.map(\.count)
    #expect(
      converged,
      "\(counts) members on the nodes, \(stored.count) stored; not stored: \(extra), acknowledged of them: \(extraAcked); \(replication)"
    )
  }
}
