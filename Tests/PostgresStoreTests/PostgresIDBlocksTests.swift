import Foundation
import PostgresDomainStorage
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

/// Ids in blocks from a sequence: never one twice, across nodes, and a node giving ids faster
/// than a block comes back takes more blocks at a time rather than stay dry.
@Suite("Ids in blocks from PostgreSQL", .serialized)
struct PostgresIDBlocksTests {
  @Test(
    "two nodes taking 20,000 ids each in bursts of 100 a millisecond apart, from blocks of 100: no id twice, and each ran dry only a few times (it fetches twice as many blocks after each), not at every block"
  )
  func blocksKeepUp() async throws {
    let database = try await TestDatabase.make()
    do {
      try await database.connect { connection in
        try await connection.query(
          "CREATE SEQUENCE test_id_blocks INCREMENT BY 100", logger: TestDatabase.logger)
      }
      let connector = PostgresConnector(location: database.location, logger: TestDatabase.logger)
      let nodes = [
        try await PostgresIDBlocks(
          sequence: "test_id_blocks", blockSize: 100, connector: connector,
          logger: TestDatabase.logger),
        try await PostgresIDBlocks(
          sequence: "test_id_blocks", blockSize: 100, connector: connector,
          logger: TestDatabase.logger),
      ]
      let taken = try await withThrowingTaskGroup(of: ([Int64], Int).self) { group in
        for blocks in nodes {
          group.addTask {
            var ids: [Int64] = []
            var drySpells = 0
            var dry = false
            let deadline = ContinuousClock.now + .seconds(60)
            while ids.count < 20_000 {
              // Bursts of 100, a millisecond apart: up to 100,000 ids a second.
              if ids.count % 100 == 0 { try await Task.sleep(for: .milliseconds(1)) }
              if let id = blocks.next() {
                ids.append(id)
                dry = false
              } else {
                if !dry { drySpells += 1 }
                dry = true
                guard ContinuousClock.now < deadline else { break }
                try await Task.sleep(for: .microseconds(100))
              }
            }
            return (ids, drySpells)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      let all = taken.flatMap(\.0)
      #expect(all.count == 40_000)
      #expect(Set(all).count == all.count, "an id given twice")
      #expect(all.allSatisfy { $0 > 0 })
      let spells = taken.map(\.1)
      #expect(spells.allSatisfy { $0 <= 12 }, "dry spells per node: \(spells)")
      print("ids in blocks of 100: dry spells per node while taking 20,000: \(spells)")
    } catch {
      await database.drop()
      throw error
    }
    await database.drop()
  }
}
