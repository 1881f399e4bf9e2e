import Durability
import Geodesy
import Keyspace
import NIOConcurrencyHelpers
import PostgresKeyspaceStore
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

/// A COMMIT whose answer is lost while no database can be asked whether it went through: the
/// command fails as `outcomeUnknown`, the node keeps counting the write as its own until the
/// store learns the outcome, and then either its feed row or the failure ends the count, once.
@Suite("A lost COMMIT whose outcome is learnt later", .serialized)
struct LostCommitTests {
  typealias Node = PostgresKeyspaceTests.Node

  @Test(
    "the COMMIT reaches the database, its answer and every connection are lost for 3 s: the GEOADD fails as outcome unknown, stays pending while unknown, and once the database is back is learnt committed; the node's count ends at 0 through its feed row, and it holds what the database holds"
  )
  func committedAfterAll() async throws {
    try await lose(forwarding: true)
  }

  @Test(
    "the COMMIT never reaches the database: the GEOADD fails as outcome unknown, stays pending while unknown, is learnt not committed once the database is back, and the node goes back to what the database holds"
  )
  func neverCommitted() async throws {
    try await lose(forwarding: false)
  }

  /// Fails, naming the step reached, rather than hang past `limit`: the body is left behind.
  private func within(
    _ limit: Duration, _ step: NIOLockedValueBox<String>,
    _ body: @escaping @Sendable () async throws -> Void
  ) async throws {
    let settled = NIOLockedValueBox(false)
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      @Sendable func settle(_ result: Result<Void, any Error>) {
        guard
          settled.withLockedValue({
            let was = $0
            $0 = true
            return !was
          })
        else { return }
        done.resume(with: result)
      }
      Task {
        do {
          try await body()
          settle(.success(()))
        } catch {
          settle(.failure(error))
        }
      }
      Task {
        try? await Task.sleep(for: limit)
        settle(.failure(Stuck(step: step.withLockedValue { $0 })))
      }
    }
  }

  struct Stuck: Error, CustomStringConvertible {
    let step: String
    var description: String { "no end within the limit, at: \(step)" }
  }

  private func lose(forwarding: Bool) async throws {
    let step = NIOLockedValueBox("opening")
    try await within(.seconds(120), step) { try await self.steps(forwarding: forwarding, step) }
  }

  private func steps(forwarding: Bool, _ step: NIOLockedValueBox<String>) async throws {
    func at(_ name: String) { step.withLockedValue { $0 = name } }
    try await PostgresKeyspaceTests.withDatabase { database, _ in
      let cutter = try CommitCutter(target: UInt16(database.location.hosts[0].port))
      defer { cutter.stop() }
      var through = database.location
      through.hosts = [PostgresLocation.Host(name: "127.0.0.1", port: Int(cutter.port))]
      at("opening the store through the relay")
      let store = try await PostgresStore(
        location: through, migrations: KeyspaceTables.migrations, outcomeWait: .seconds(1),
        logger: TestDatabase.logger)
      let node = Node(
        store: store,
        keyspace: try await PostgresKeyspace(
          store: store, keyspace: Keyspace(), logger: TestDatabase.logger
        ) {},
        fellBehind: NIOLockedValueBox(false))
      do {
        at("the first GEOADD")
        try await node.geoadd("k", "m", 1, 1)
        at("the first catch-up")
        try await node.catchUp()
        #expect(node.keyspace.ownChangesPending == 0)

        at("the GEOADD whose COMMIT is lost")
        cutter.arm(forwarding: forwarding)
        var later: OutcomeLater?
        do {
          try await node.geoadd("k", "m", 2, 2)
          Issue.record("the GEOADD whose COMMIT was lost succeeded")
        } catch let error as PostgresStoreError {
          guard case .outcomeUnknown(_, let outcome) = error else {
            throw error
          }
          later = outcome
        }
        #expect(cutter.hasCut)
        let outcome = try #require(later, "no later outcome")
        // Unknown, and the database still gone: the write is still this node's.
        #expect(node.keyspace.ownChangesPending == 1)
        try await Task.sleep(for: .seconds(2))
        #expect(node.keyspace.ownChangesPending == 1)

        at("waiting for the outcome")
        cutter.reopen()
        let learnt = NIOLockedValueBox<Bool?>(nil)
        outcome.whenKnown { committed in learnt.withLockedValue { $0 = committed } }
        for _ in 0..<100 where learnt.withLockedValue({ $0 }) == nil {
          try await Task.sleep(for: .milliseconds(100))
        }
        #expect(learnt.withLockedValue { $0 } == forwarding)
        at("the catch-up after")
        try await node.catchUp()
        var stored: [String: [String: Double]] = [:]
        for _ in 0..<100 {
          stored = try await PostgresKeyspaceTests.stored(database)
          if node.contents == stored && node.keyspace.ownChangesPending == 0 { break }
          try await Task.sleep(for: .milliseconds(50))
        }
        #expect(node.keyspace.ownChangesPending == 0)
        #expect(node.contents == stored, "node: \(node.contents), database: \(stored)")
        let expected = forwarding ? (2.0, 2.0) : (1.0, 1.0)
        let score = Double(RedisGeohash.score(longitude: expected.0, latitude: expected.1)!)
        #expect(stored["k"]?["m"] == score, "\(stored)")
        // Later writes are counted and come back as before.
        at("the last GEOADD")
        try await node.geoadd("k", "m", 3, 3)
        try await node.catchUp()
        #expect(node.keyspace.ownChangesPending == 0)
      } catch {
        at("closing the node after \(error)")
        await node.close()
        throw error
      }
      at("closing the node")
      await node.close()
      at("dropping the database")
    }
  }
}
