import Foundation
import Geodesy
import Keyspace
import NIOConcurrencyHelpers
import PostgresNIO
import PostgresTestSupport
import Testing

/// A commit that fails leaves the node's memory ahead of the database; the node must come back
/// to what the database holds, later local writes to the same keys included.
@Suite("A failed commit, then more writes")
struct FailedCommitTests {
  typealias Node = PostgresKeyspaceTests.Node

  @Test(
    "a GEOADD the database refuses, with writes to the same key racing it before and after its reload: once quiet, the node holds what the database holds, 40 rounds"
  )
  func reloadKeepsLaterWrites() async throws {
    try await PostgresKeyspaceTests.withDatabase { database, open in
      let a = try await open()
      // The database refuses any member named "poison": its command's whole commit fails.
      try await database.connect { connection in
        try await connection.query(
          """
          CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.member = 'poison'::bytea THEN RAISE EXCEPTION 'poisoned'; END IF;
            RETURN NEW;
          END $$
          """, logger: TestDatabase.logger)
        try await connection.query(
          """
          CREATE TRIGGER refuse_poison BEFORE INSERT OR UPDATE ON geo_members
          FOR EACH ROW EXECUTE FUNCTION refuse_poison()
          """, logger: TestDatabase.logger)
      }
      let failures = NIOLockedValueBox(0)
      for round in 0..<40 {
        let key = "k\(round % 4)"
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            do {
              try await a.keyspace.write { writer in
                for (member, x) in [("poison", 1 + Double(round) / 100), ("m", Double(round))] {
                  let score = Double(RedisGeohash.score(longitude: x, latitude: 1)!)
                  let set = writer.sortedSet(db: 0, key: Bytes(key.utf8))
                  writer.upsert(
                    db: 0, key: Bytes(key.utf8), set: set, member: Bytes(member.utf8),
                    score: score)
                }
              }
            } catch {
              failures.withLockedValue { $0 += 1 }
            }
          }
          for i in 0..<3 {
            group.addTask {
              try await Task.sleep(for: .microseconds(300 * i))
              // Committed with the poisoned write, in one transaction, it fails with it.
              try? await a.geoadd(key, "m", Double(round) + 0.1 * Double(i + 1), 2)
            }
          }
          try await group.waitForAll()
        }
      }
      #expect(failures.withLockedValue { $0 } == 40, "every poisoned write failed")
      try await a.catchUp()
      var stored: [String: [String: Double]] = [:]
      for _ in 0..<100 {
        stored = try await PostgresKeyspaceTests.stored(database)
        if a.contents == stored { break }
        try await Task.sleep(for: .milliseconds(50))
      }
      #expect(a.contents == stored, "node: \(a.contents), database: \(stored)")
      #expect(a.contents.values.allSatisfy { $0["poison"] == nil })
    }
  }
}
