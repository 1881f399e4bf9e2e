import Foundation
import RedisTestSupport
import Synchronization
import Testing

/// A node paused under writers, and every node restarted in turn: what operators do to a
/// cluster, with clients writing throughout.
@Suite("Nodes paused and restarted in turn over PostgreSQL", .serialized)
struct NodeLifecycleTests {
  @Test(
    "a node paused (SIGSTOP) for 30 s while writers use both nodes, then resumed: the paused node's commands are answered (TRYAGAIN at most), every acknowledged GEOADD is on both nodes, and both hold exactly the acknowledged members"
  )
  func pausedNodeCatchesUp() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      let writers = GeoaddWriters(4, ports: [a.port, b.port])
      try await Task.sleep(for: .seconds(1))
      b.signal(SIGSTOP)
      let paused = writers.acknowledged.withLock { $0.count }
      try await Task.sleep(for: .seconds(30))
      let whilePaused = writers.acknowledged.withLock { $0.count } - paused
      b.signal(SIGCONT)
      try await Task.sleep(for: .seconds(2))
      _ = try await writers.stop()
      let acknowledged = Set(writers.acknowledged.withLock { $0 })
      let refusals = writers.refusals.withLock { $0 }
      #expect(Set(refusals.keys).isSubset(of: ["-TRYAGAIN"]), "\(refusals)")
      let held = try await GeoaddWriters.held(on: [a.port, b.port], converging: acknowledged)
      for (node, members) in zip(["A", "B"], held) {
        #expect(
          members == acknowledged,
          "\(node): \(acknowledged.subtracting(members).count) acknowledged missing, \(members.subtracting(acknowledged).count) never acknowledged"
        )
      }
      print("paused node: \(acknowledged.count) GEOADDs acknowledged, \(whilePaused) while paused")
    }
  }

  @Test(
    "a rolling restart (each of two nodes stopped with SIGTERM and started again in turn) under writers that move to the other node when theirs goes: no acknowledged GEOADD is lost, and both nodes end with the same members"
  )
  func rollingRestartLosesNothing() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      var nodes = try ["a", "b"].map { try NodesOverRESPTests.node(url, directory + "/" + $0) }
      let ports = nodes.map(\.port)
      let writers = FailingOverWriters(4, ports: ports)
      for (i, name) in ["a", "b"].enumerated() {
        try await Task.sleep(for: .seconds(1))
        nodes[i].signal(SIGTERM)
        nodes[i].waitUntilExit()
        #expect(nodes[i].exitStatus == 0, "node \(name) stopped cleanly")
        nodes[i] = try CardAtlasProcess(
          directory: directory + "/" + name, port: ports[i], arguments: ["--store", url])
      }
      try await Task.sleep(for: .seconds(1))
      try await writers.stop()
      let acknowledged = Set(writers.acknowledged.withLock { $0 })
      #expect(writers.movedOver.load(ordering: .relaxed) > 0, "writers moved to the other node")
      #expect(acknowledged.count > 100, "\(acknowledged.count) acknowledged")
      // A write stopped before its retry may be stored unacknowledged: the nodes must agree, and
      // hold every acknowledged one.
      var held: [Set<String>] = []
      for _ in 0..<400 {
        held = []
        for port in ports {
          held.append(try await NodesOverRESPTests.members(of: "fleet", on: port, atLeast: 0))
        }
        if held[0] == held[1], acknowledged.isSubset(of: held[0]) { break }
        try await Task.sleep(for: .milliseconds(50))
      }
      for (node, members) in zip(["A", "B"], held) {
        let missing = acknowledged.subtracting(members)
        #expect(missing.isEmpty, "\(node): acknowledged but missing \(missing.sorted().prefix(5))")
      }
      #expect(held[0] == held[1], "the nodes hold the same members")
      print(
        "rolling restart: \(acknowledged.count) GEOADDs acknowledged, "
          + "\(writers.movedOver.load(ordering: .relaxed)) moves to the other node")
    }
  }
}

/// Clients writing GEOADDs of new members, each to one node until it goes away (a closed
/// connection, or `LOADING`/`TRYAGAIN` while it stops or starts), then to the other: the same
/// member is sent again there, so a write whose reply was lost is acknowledged once it is known
/// to be stored (`:0` from the second node means the first had stored it).
final class FailingOverWriters: Sendable {
  let acknowledged = Mutex<[String]>([])
  let movedOver = Atomic<Int>(0)
  private let stopped = Atomic<Bool>(false)
  private let finished = Atomic<Int>(0)
  private let count: Int

  init(_ count: Int, ports: [UInt16]) {
    self.count = count
    for w in 0..<count {
      Thread { [self] in
        defer { finished.add(1, ordering: .relaxed) }
        var turn = w
        var connection: RESPConnection?
        var i = 0
        while !stopped.load(ordering: .relaxed) {
          let member = "w\(w)-\(i)"
          if connection == nil {
            connection = try? RESPConnection(port: ports[turn % ports.count], timeoutSeconds: 60)
          }
          let args = ["GEOADD", "fleet", String(Double(i % 360) - 179.5), "20", member]
          let reply = (try? connection?.command(args))?.text
          if reply == ":1\r\n" || reply == ":0\r\n" {
            acknowledged.withLock { $0.append(member) }
            i += 1
          } else {
            // Gone, stopping or loading: the other node, the same member again.
            connection = nil
            turn += 1
            movedOver.add(1, ordering: .relaxed)
            usleep(20_000)
          }
        }
      }.start()
    }
  }

  func stop() async throws {
    stopped.store(true, ordering: .relaxed)
    for _ in 0..<1200 where finished.load(ordering: .relaxed) < count {
      try await Task.sleep(for: .milliseconds(50))
    }
  }
}
