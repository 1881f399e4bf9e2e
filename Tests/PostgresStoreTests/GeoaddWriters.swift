import Foundation
import RedisTestSupport
import Synchronization

/// Clients writing GEOADDs of new members to one key, each on its own connection to one of the
/// nodes, until stopped: what a fault test does to the nodes meanwhile, and what they answered.
final class GeoaddWriters: Sendable {
  let acknowledged = Mutex<[String]>([])
  /// Replies other than an acknowledgement, by their first word.
  let refusals = Mutex<[String: Int]>([:])
  private let stopped = Atomic<Bool>(false)
  private let finished = Atomic<Int>(0)
  private let count: Int

  /// `count` writers, spread over `ports` in turn, writing members `w<writer>-<n>`.
  init(_ count: Int, ports: [UInt16]) {
    self.count = count
    for w in 0..<count {
      Thread { [self] in
        defer { finished.add(1, ordering: .relaxed) }
        guard let connection = try? RESPConnection(port: ports[w % ports.count], timeoutSeconds: 60)
        else { return }
        // Not `for i in 0... where !stopped`: that filters an endless range, and never ends.
        var i = 0
        while !stopped.load(ordering: .relaxed) {
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
      }.start()
    }
  }

  /// Stops the writers; how long their last replies took to come (at most a minute).
  func stop() async throws -> Duration {
    stopped.store(true, ordering: .relaxed)
    let start = ContinuousClock.now
    for _ in 0..<1200 where finished.load(ordering: .relaxed) < count {
      try await Task.sleep(for: .milliseconds(50))
    }
    return ContinuousClock.now - start
  }

  /// The members each node holds, once they hold `stored` (or after 20 s).
  static func held(on ports: [UInt16], converging stored: Set<String>) async throws
    -> [Set<String>]
  {
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
    return held
  }
}
