import NIOConcurrencyHelpers
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

/// A commit's feed row gets its id after the COMMIT, in a statement of its own: what a node
/// loading in between reads, and what happens when the writer never gives the id.
@Suite("The change feed's ids, given after commit", .serialized)
struct FeedSequencingTests {
  /// The advisory lock ids are given under (`PostgresLocks.feed`): holding it from a test's
  /// connection leaves committed rows without ids.
  static let feedLock: Int64 = 0x4361_7264_0002

  @Test(
    "a row committed without its id when a node loads is in what the node loaded, and is not applied to it again once it gets an id; the rows after it are"
  )
  func pendingRowAppliedOnce() async throws {
    try await PostgresKeyspaceTests.withDatabase { database, open in
      let a = try await open()
      try await database.connect { holder in
        try await holder.query("SELECT pg_advisory_lock(\(Self.feedLock))", logger: Self.logger)
        let held = Task { try await a.geoadd("fleet", "held", 10, 20) }
        try await Self.waitUntilUnsequenced(1, on: holder)
        let b = try await open()
        let position = try await b.store.snapshot { _, position in position }
        #expect(b.contents["fleet"]?["held"] != nil, "the committed row's write is loaded")
        let applied = NIOLockedValueBox<[Int64]>([])
        let skipped = NIOLockedValueBox<[Int64]>([])
        let follower = b.store.follow(after: position.id) { entry in
          if position.precedes(entry) {
            applied.withLockedValue { $0.append(entry.position) }
          } else {
            skipped.withLockedValue { $0.append(entry.position) }
          }
        } fellBehind: {
        }
        try await holder.query("SELECT pg_advisory_unlock(\(Self.feedLock))", logger: Self.logger)
        try await held.value
        try await a.geoadd("fleet", "after", 11, 21)
        let last = try await a.store.snapshot { _, position in position.id }
        #expect(await follower.waitUntilApplied(last), "B's follower reached \(last)")
        await follower.stop()
        let heldId = skipped.withLockedValue { $0 }
        #expect(heldId.count == 1, "the held row came once, and was skipped: \(heldId)")
        #expect(heldId.allSatisfy { $0 > position.id }, "its id came after the snapshot's")
        #expect(applied.withLockedValue { $0 } == [last], "the row after it was applied")
        try await b.catchUp()
        #expect(Set((b.contents["fleet"] ?? [:]).keys) == ["held", "after"])
      }
    }
  }

  @Test(
    "a writer whose connection fails between its COMMIT and giving its row an id: the write is acknowledged, and another node's follower gives the id within seconds"
  )
  func abandonedRowGetsItsId() async throws {
    try await PostgresKeyspaceTests.withDatabase { database, open in
      let a = try await open()
      let b = try await open()
      try await database.connect { holder in
        try await holder.query("SELECT pg_advisory_lock(\(Self.feedLock))", logger: Self.logger)
        let held = Task { try await a.geoadd("fleet", "abandoned", 10, 20) }
        try await Self.waitUntilUnsequenced(1, on: holder)
        // A's call waits for the lock: its connection is cut.
        var cut = 0
        for _ in 0..<200 where cut == 0 {
          cut =
            try await holder.query(
              """
              SELECT count(pg_terminate_backend(pid))::int FROM pg_locks
              WHERE locktype = 'advisory' AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
              """, logger: Self.logger
            ).collect().first?.decode(Int.self) ?? 0
          if cut == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(cut == 1, "A's call was waiting for the lock")
        try await held.value
        let released = ContinuousClock.now
        try await holder.query("SELECT pg_advisory_unlock(\(Self.feedLock))", logger: Self.logger)
        var seen = false
        while !seen, ContinuousClock.now - released < .seconds(10) {
          seen = b.contents["fleet"]?["abandoned"] != nil
          try await Task.sleep(for: .milliseconds(20))
        }
        let waited = ContinuousClock.now - released
        #expect(seen, "B applied the row after \(waited)")
        #expect(waited < .seconds(5), "within the followers' check (every second): \(waited)")
        try await Self.waitUntilUnsequenced(0, on: holder)
        print("an abandoned feed row reached another node \(waited) after the lock was free")
      }
    }
  }

  static let logger = TestDatabase.logger

  /// Waits until `count` committed rows have no id (10 s at most).
  static func waitUntilUnsequenced(_ count: Int, on connection: PostgresConnection) async throws {
    var found = -1
    for _ in 0..<500 {
      found =
        try await connection.query(
          "SELECT count(*)::int FROM cardatlas_changes WHERE id IS NULL", logger: logger
        ).collect().first?.decode(Int.self) ?? 0
      if found == count { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("\(found) rows without an id, not \(count)")
  }
}
