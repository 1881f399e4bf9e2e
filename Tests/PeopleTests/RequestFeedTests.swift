import Testing

@testable import People

/// One exchange request written by three nodes over a shared store, against the database's
/// order: whatever the interleaving of local changes, commits, failed writes and feed reads,
/// every node ends holding what the database holds (`ExchangeState.follow`, `failed`).
@Suite("A request's state across nodes")
struct RequestFeedTests {
  struct Node {
    var state = ExchangeState()
    /// Writes not committed yet, oldest first: the state before and after each.
    var writes: [(before: Double?, after: Double?)] = []
    /// Feed rows read.
    var read = 0
  }

  /// The database's commits, in order: who wrote each, and the state it wrote.
  typealias Log = [(node: Int, at: Double?)]

  @Test(
    "random interleavings of new requests and their ends on three nodes, commits (each writing memory's state as it applies), failed writes and feed reads: every node ends as the database"
  )
  func nodesEndAsTheDatabase() {
    var random = SystemRandomNumberGenerator()
    for round in 0..<3_000 {
      var nodes = (0..<3).map { _ in Node() }
      for n in nodes.indices { nodes[n].state.pending = [:] }
      var log: Log = []
      var history: [String] = []
      var time = 0.0
      for _ in 0..<Int.random(in: 1...40, using: &random) {
        let n = Int.random(in: 0..<3, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
          time += 1
          history.append("\(n) changes")
          Self.change(&nodes[n], at: time)
        case 1 where !nodes[n].writes.isEmpty:
          history.append("\(n) commits")
          Self.commit(&nodes[n], n, &log)
        case 2 where !nodes[n].writes.isEmpty:
          history.append("\(n) fails")
          Self.fail(&nodes[n])
        case 3 where nodes[n].read < log.count:
          history.append("\(n) reads")
          Self.read(&nodes[n], n, log)
        default: break
        }
      }
      // Quiet: every write commits, every node reads every row.
      for n in nodes.indices {
        while !nodes[n].writes.isEmpty { Self.commit(&nodes[n], n, &log) }
      }
      for n in nodes.indices {
        while nodes[n].read < log.count { Self.read(&nodes[n], n, log) }
        #expect(
          nodes[n].state.requested(1, 2) == log.last?.at ?? nil,
          "round \(round), node \(n): \(history.joined(separator: ", "))")
        #expect(nodes[n].state.pending?.isEmpty == true)
      }
    }
  }

  /// As EXCHANGE.REQUEST changes it: made when there is none, ended (by an exchange) when
  /// there is one.
  static func change(_ node: inout Node, at time: Double) {
    let before = node.state.requested(1, 2)
    let after = before == nil ? time : nil
    node.state.writing(1, 2)
    node.state.set(1, 2, at: after)
    node.writes.append((before, after))
  }

  /// The oldest write commits what memory holds as it applies (`syncRequest`).
  static func commit(_ node: inout Node, _ n: Int, _ log: inout Log) {
    node.writes.removeFirst()
    log.append((n, node.state.requested(1, 2)))
  }

  /// The oldest write fails with nothing written: undone in memory unless changed since, as
  /// `People.request` does, then counted as failed.
  static func fail(_ node: inout Node) {
    let write = node.writes.removeFirst()
    if node.state.requested(1, 2) == write.after { node.state.set(1, 2, at: write.before) }
    node.state.failed(1, 2)
  }

  static func read(_ node: inout Node, _ n: Int, _ log: Log) {
    let row = log[node.read]
    node.read += 1
    node.state.follow(1, 2, at: row.at, own: row.node == n)
  }
}
