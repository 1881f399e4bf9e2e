import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
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
    let ports = nodes.map(\.port)
    let writers = GeoaddWriters(4, ports: ports)
    try await Task.sleep(for: .seconds(2))
    let beforeRestart = writers.acknowledged.withLock { $0.count }
    let restarted = ContinuousClock.now
    try FailoverTests.pair(["restart", clusters])
    let back = ContinuousClock.now - restarted
    try await Task.sleep(for: .seconds(5))
    let drained = try await writers.stop()
    let acked = Set(writers.acknowledged.withLock { $0 })
    let said = writers.refusals.withLock { $0 }
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
    let held = try await writers.held(on: ports, converging: stored)
    #expect(
      held.count == 2 && held.allSatisfy { $0 == stored },
      "\(held.map(\.count)) members on the nodes, \(stored.count) stored")
  }
}
