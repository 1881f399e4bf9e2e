import ArgumentParser
import Foundation
import Geodesy
import Keyspace
import Logging
import PostgresKeyspaceStore
import PostgresStore
import Synchronization

struct BenchNodes: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "nodes",
    abstract: "Time how soon one node's GEOADDs are seen by another over a shared PostgreSQL.",
    discussion: """
      Opens two nodes on --store (a database of its own: the bench writes key bench:lag and \
      leaves the keyspace tables and the change feed behind). Node A makes --rate single-member \
      GEOADDs a second for --seconds, from --writers tasks at once (so the group commit has \
      company), each acknowledged after PostgreSQL's COMMIT. Node B follows the change feed; \
      for each member, the lag is the time from A's acknowledgement to B reading its feed row \
      and decoding it (what B's keyspace applies next, under its lock). Prints the rate \
      reached and the lag's percentiles.
      """)

  @Option(help: "The database, postgresql://user@host:port/db.") var store: String
  @Option(help: "GEOADDs a second on node A.") var rate = 5000
  @Option(help: "Seconds of writing.") var seconds = 10
  @Option(help: "Concurrent writers on node A.") var writers = 64

  func run() async throws {
    var logger = Logger(label: "cardatlas-bench")
    logger.logLevel = .warning
    let location = try PostgresLocation(url: store)
    let a = try await PostgresStore(
      location: location, migrations: KeyspaceTables.migrations, logger: logger)
    let b = try await PostgresStore(
      location: location, migrations: KeyspaceTables.migrations, logger: logger)
    let nodeA = try await PostgresKeyspace(store: a, keyspace: Keyspace(), logger: logger) {
      print("node A fell behind the change feed")
    }
    let start = try await b.snapshot { _, position in position }
    let clock = ContinuousClock()
    let origin = clock.now
    let tally = Tally()
    let follower = b.follow(after: start.id) { entry in
      let now = clock.now - origin
      for section in entry.sections {
        for change in ChangeCoding.changes(section.bytes[...]) ?? [] {
          if case .geoUpsert(_, _, let member, _, _, _) = change,
            let id = Int(String(decoding: member, as: UTF8.self))
          {
            tally.seen.withLock { $0[id] = now }
          }
        }
      }
    } fellBehind: {
      print("node B fell behind the change feed")
    }
    let total = rate * seconds
    let key = Bytes("bench:lag".utf8)
    let interval = Duration.seconds(1) / rate
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<writers {
        group.addTask {
          while true {
            let id = tally.next.add(1, ordering: .relaxed).oldValue
            guard id < total else { return }
            let due = origin + interval * id
            if clock.now < due { try await clock.sleep(until: due) }
            let longitude = Double(id % 3600) / 10 - 180
            let latitude = Double(id % 1700) / 10 - 85
            let score = Double(RedisGeohash.score(longitude: longitude, latitude: latitude)!)
            try await nodeA.write { writer in
              let set = writer.sortedSet(db: 0, key: key)
              writer.upsert(
                db: 0, key: key, set: set, member: Bytes(String(id).utf8), score: score)
            }
            let now = clock.now - origin
            tally.acked.withLock { $0[id] = now }
          }
        }
      }
      try await group.waitForAll()
    }
    let wrote = clock.now - origin
    let last = try await b.snapshot { _, position in position.id }
    _ = await follower.waitUntilApplied(last, timeout: .seconds(60))
    await follower.stop()
    await nodeA.close()
    await b.close()

    let acks = tally.acked.withLock { $0 }
    let reads = tally.seen.withLock { $0 }
    var lags = acks.compactMap { id, at in reads[id].map { max(.zero, $0 - at) } }.sorted()
    let missing = acks.count - lags.count
    guard !lags.isEmpty else { throw ValidationError("node B saw none of node A's writes") }
    func ms(_ d: Duration) -> String {
      String(
        format: "%.2f ms",
        Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000)
    }
    func at(_ p: Double) -> Duration { lags[min(lags.count - 1, Int(Double(lags.count) * p))] }
    let seconds = Double(wrote.components.seconds) + Double(wrote.components.attoseconds) / 1e18
    print(
      "node A: \(acks.count) GEOADDs acknowledged in "
        + String(format: "%.2f s (%.0f/s)", seconds, Double(acks.count) / seconds))
    print(
      "visibility on node B: p50 \(ms(at(0.5))), p90 \(ms(at(0.9))), p99 \(ms(at(0.99))), "
        + "p99.9 \(ms(at(0.999))), max \(ms(lags.removeLast())); not seen: \(missing)")
  }
}

/// What the writers and the follower record, shared between their tasks.
private final class Tally: Sendable {
  let next = Atomic<Int>(0)
  let acked = Mutex<[Int: Duration]>([:])
  let seen = Mutex<[Int: Duration]>([:])
}
