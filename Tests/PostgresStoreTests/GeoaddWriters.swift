import Foundation
import RedisTestSupport
import Synchronization

/// Clients writing GEOADDs of new members, each on its own connection to one of the nodes,
/// until stopped: what a fault test does to the nodes meanwhile, and what they answered.
final class GeoaddWriters: Sendable {
  /// Where the writers' members go.
  enum Keys {
    /// One key, `fleet`, for all.
    case one
    /// A key per node, `fleet-<n>`, written by the writers of node `n`.
    case perNode
  }

  let acknowledged = Mutex<[String]>([])
  /// Acknowledgements by the index of the node's port that gave them.
  let acknowledgedBy = Mutex<[Int: Int]>([:])
  /// Replies other than an acknowledgement, by their first word.
  let refusals = Mutex<[String: Int]>([:])
  /// How often a failing-over writer moved to the next node.
  let movedOver = Atomic<Int>(0)
  let keys: [String]
  private let stopped = Atomic<Bool>(false)
  private let finished = Atomic<Int>(0)
  private let count: Int

  /// `count` writers, spread over `ports` in turn, writing members `w<writer>-<n>`. A writer
  /// that fails over, when its node goes away (a closed connection, or `LOADING`/`TRYAGAIN`
  /// while it stops or starts), moves to the next node and sends the same member again there:
  /// a write whose reply was lost is acknowledged once known stored (`:0` from the next node
  /// means the first had stored it). One that does not stops at a closed connection.
  init(_ count: Int, ports: [UInt16], keys: Keys = .one, failOver: Bool = false) {
    self.count = count
    self.keys =
      switch keys {
      case .one: ["fleet"]
      case .perNode: ports.indices.map { "fleet-\($0)" }
      }
    for w in 0..<count {
      Thread { [self] in
        defer { finished.add(1, ordering: .relaxed) }
        let key = self.keys[w % self.keys.count]
        var turn = w
        var connection: RESPConnection?
        // Not `for i in 0... where !stopped`: that filters an endless range, and never ends.
        var i = 0
        while !stopped.load(ordering: .relaxed) {
          let member = "w\(w)-\(i)"
          let node = turn % ports.count
          if connection == nil {
            connection = try? RESPConnection(port: ports[node], timeoutSeconds: 60)
          }
          let lon = String(Double(i % 360) - 179.5)
          let reply = (try? connection?.command("GEOADD", key, lon, "10", member))?.text
          if reply == ":1\r\n" || (failOver && reply == ":0\r\n") {
            acknowledged.withLock { $0.append(member) }
            acknowledgedBy.withLock { $0[node, default: 0] += 1 }
            i += 1
            continue
          }
          if let reply {
            let kind = String(reply.prefix { $0 != " " })
            refusals.withLock { $0[kind, default: 0] += 1 }
          }
          guard failOver else {
            guard reply != nil else { return }
            i += 1
            continue
          }
          connection = nil
          turn += 1
          movedOver.add(1, ordering: .relaxed)
          usleep(20_000)
        }
      }.start()
    }
  }

  /// Stops the writers; how long their last replies took to come (at most a minute).
  @discardableResult
  func stop() async throws -> Duration {
    stopped.store(true, ordering: .relaxed)
    let start = ContinuousClock.now
    for _ in 0..<1200 where finished.load(ordering: .relaxed) < count {
      try await Task.sleep(for: .milliseconds(50))
    }
    return ContinuousClock.now - start
  }

  /// The members each node holds over the writers' keys, once they hold `stored` (or after
  /// 20 s).
  func held(on ports: [UInt16], converging stored: Set<String>) async throws -> [Set<String>] {
    try await held(on: ports) { held in held.allSatisfy { $0 == stored } }
  }

  /// The members each node holds over the writers' keys, once `done` says so (or after 20 s).
  func held(on ports: [UInt16], until done: ([Set<String>]) -> Bool) async throws
    -> [Set<String>]
  {
    var held: [Set<String>] = []
    for _ in 0..<400 {
      held = try ports.map { port in
        let connection = try RESPConnection(port: port)
        return try keys.reduce(into: Set<String>()) { members, key in
          members.formUnion(
            try connection.command("ZRANGE", key, "0", "-1").text
              .split(separator: "\r\n").filter { !$0.hasPrefix("*") && !$0.hasPrefix("$") }
              .map(String.init))
        }
      }
      if done(held) { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    return held
  }
}
