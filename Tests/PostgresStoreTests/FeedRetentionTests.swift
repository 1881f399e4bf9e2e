import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresKeyspaceStore
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

/// The change feed stays small: rows every live node has applied go; rows a live node has not
/// stay; a node that was silent too long finds out rather than missing changes.
@Suite("Change feed retention")
struct FeedRetentionTests {
  typealias Node = PostgresKeyspaceTests.Node

  /// Prunes by hand: no age, nodes live for a minute; the background round never comes.
  static let retention: FeedRetention = {
    var retention = FeedRetention()
    retention.minimumAge = .zero
    retention.nodeTimeout = .seconds(60)
    retention.interval = .seconds(3600)
    return retention
  }()

  static func query(_ database: TestDatabase, _ sql: String) async throws -> [Int64] {
    try await database.connect { connection in
      try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger)
        .collect().map { try $0.decode(Int64.self) }
    }
  }

  /// Waits until every node in `cardatlas_nodes` reports `position` (they report each second).
  static func reported(_ database: TestDatabase, _ position: Int64, nodes: Int) async throws {
    for _ in 0..<100 {
      let positions = try await query(database, "SELECT position FROM cardatlas_nodes")
      if positions.count == nodes && positions.allSatisfy({ $0 == position }) { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("the nodes did not report position \(position)")
  }

  @Test(
    "rows every live node applied are pruned (the newest kept); a node started after loads everything; the others go on following"
  )
  func prunesWhatAllApplied() async throws {
    try await PostgresKeyspaceTests.withDatabase(retention: Self.retention) { database, open in
      let a = try await open()
      let b = try await open()
      for i in 0..<50 { try await a.geoadd("k", "m\(i)", Double(i), 1) }
      let last = try #require(
        try await Self.query(database, "SELECT max(id) FROM cardatlas_changes").first)
      try await b.catchUp()
      try await Self.reported(database, last, nodes: 2)
      await a.store.prune(Self.retention)
      #expect(try await Self.query(database, "SELECT id FROM cardatlas_changes") == [last])
      #expect(
        try await Self.query(database, "SELECT pruned_through FROM cardatlas_feed_state")
          == [last - 1])
      for i in 0..<20 { try await b.geoadd("k", "n\(i)", Double(i), 2) }
      let c = try await open()
      try await a.catchUp()
      try await c.catchUp()
      #expect(c.contents["k"]?.count == 70)
      #expect(a.contents == b.contents && b.contents == c.contents)
      #expect(!a.fellBehind.withLockedValue { $0 } && !b.fellBehind.withLockedValue { $0 })
    }
  }

  @Test("a live node's unapplied rows stay; a node silent past the timeout holds nothing back")
  func liveNodesHoldRows() async throws {
    try await PostgresKeyspaceTests.withDatabase(retention: Self.retention) { database, open in
      let a = try await open()
      for i in 0..<30 { try await a.geoadd("k", "m\(i)", Double(i), 1) }
      let ids = try await Self.query(database, "SELECT id FROM cardatlas_changes ORDER BY id")
      try await Self.reported(database, ids.last!, nodes: 1)
      // A live node at the tenth row, and one silent for two minutes at the first.
      try await database.connect { connection in
        try await connection.query(
          """
          INSERT INTO cardatlas_nodes (node, position, seen_at) VALUES
            ('lagging', \(ids[9]), clock_timestamp()),
            ('silent', \(ids[0]), clock_timestamp() - interval '2 minutes')
          """, logger: TestDatabase.logger)
      }
      await a.store.prune(Self.retention)
      #expect(
        try await Self.query(database, "SELECT id FROM cardatlas_changes ORDER BY id")
          == Array(ids[10...]))
    }
  }

  @Test(
    "a follower whose unapplied rows were pruned applies nothing more and says it fell behind; one whose position is past the pruned rows follows on"
  )
  func fallingBehindIsNoticed() async throws {
    try await PostgresKeyspaceTests.withDatabase(retention: Self.retention) { database, open in
      let a = try await open()
      for i in 0..<30 { try await a.geoadd("k", "m\(i)", Double(i), 1) }
      let ids = try await Self.query(database, "SELECT id FROM cardatlas_changes ORDER BY id")
      try await Self.reported(database, ids.last!, nodes: 1)
      await a.store.prune(Self.retention)
      let applied = NIOLockedValueBox<[Int64]>([])
      let behind = NIOLockedValueBox(false)
      let late = a.store.follow(after: ids[3]) { entry in
        applied.withLockedValue { $0.append(entry.position) }
      } fellBehind: {
        behind.withLockedValue { $0 = true }
      }
      let current = a.store.follow(after: ids[ids.count - 2]) { entry in
        applied.withLockedValue { $0.append(entry.position) }
      } fellBehind: {
        Issue.record("a follower past the pruned rows fell behind")
      }
      // Generous bounds: the parallel suite's servers may hold the cores for seconds.
      #expect(await current.waitUntilApplied(ids.last!, timeout: .seconds(30)))
      for _ in 0..<400 where !behind.withLockedValue({ $0 }) {
        try await Task.sleep(for: .milliseconds(50))
      }
      #expect(behind.withLockedValue { $0 })
      #expect(applied.withLockedValue { $0 } == [ids.last!], "only the current follower applied")
      await late.stop()
      await current.stop()
    }
  }
}
