import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

/// Private documents across nodes that share one PostgreSQL: stored on one node, listed and
/// read (the same bytes) on another, deleted there, gone from both with their bytes; the
/// owner's limit holds when two nodes store the last one at once.
@Suite("Documents across nodes over PostgreSQL", .serialized)
struct DocumentsAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced

  static func put(_ connection: RESPConnection, _ bytes: [UInt8]) throws -> String {
    try connection.command(bytes: [
      Array("DOC.PUT".utf8), Array("VACCINATION".utf8), Array("2026-01-05".utf8), bytes,
    ]).text
  }

  /// The ids DOC.LIST answers.
  static func listed(_ connection: RESPConnection) throws -> [Int] {
    try PeopleAcrossNodesTests.list(connection, "DOC.LIST").compactMap { $0["id"] as? Int }
  }

  static func id(_ reply: String) -> Int? {
    let json = reply.drop { $0 != "{" }.prefix { $0 != "\r" }
    let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    return object?["id"] as? Int
  }

  @Test(
    "a document stored on A is listed and read (the same bytes) on B; another account is refused it; deleted on B it leaves A, and its bytes leave the database"
  )
  func documentsTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      let onA = try RESPConnection(port: a.port)
      _ = try onA.signUp("ana@x.org")
      let png = TestPhoto.png(Array("a vaccination record".utf8))
      let id = try #require(Self.id(try Self.put(onA, png)))
      try await Self.synced(a.port, b.port)

      let onB = try RESPConnection(port: b.port)
      #expect(try onB.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try Self.listed(onB) == [id])
      guard case .array(let got) = try onB.command("DOC.GET", "\(id)").value, got.count == 2,
        case .bulkString(let bytes) = got[1]
      else {
        Issue.record("DOC.GET on B answered no document")
        return
      }
      #expect(Array(buffer: bytes) == png, "the bytes are shared")
      let stranger = try RESPConnection(port: b.port)
      _ = try stranger.signUp("eve@x.org")
      #expect(try stranger.text("DOC.GET", "\(id)").hasPrefix("NOPERM"))
      #expect(try await PinsAcrossNodesTests.mediaRows(url) == 1)

      #expect(try onB.text("DOC.DEL", "\(id)") == "1")
      try await Self.synced(b.port, a.port)
      #expect(try Self.listed(onA).isEmpty)
      let rows = try await PinsAcrossNodesTests.mediaRows(url, reaching: 0)
      #expect(rows == 0, "the bytes went with the row")
    }
  }

  @Test(
    "six accounts at 99 of their 100 documents each store one on each node at the same moment: the database keeps one, the other answers LIMIT, and both nodes list 100"
  )
  func racingLastDocument() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let nodes = [
        try NodesOverRESPTests.node(url, directory + "/a"),
        try NodesOverRESPTests.node(url, directory + "/b"),
      ]
      let accounts = 6
      for n in 0..<accounts {
        let setup = try RESPConnection(port: nodes[0].port)
        _ = try setup.signUp("racer\(n)@x.org")
        for d in 0..<99 {
          #expect(Self.id(try Self.put(setup, TestPhoto.png(Array("doc \(d)".utf8)))) != nil)
        }
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      // Signed in beforehand on both nodes, then sent together: neither node has seen the
      // other's document when it admits its own.
      var connections: [[RESPConnection]] = []
      for n in 0..<accounts {
        connections.append(
          try nodes.map { node in
            let connection = try RESPConnection(port: node.port, timeoutSeconds: 60)
            #expect(try connection.text("AUTH", "racer\(n)@x.org", "secret1") == "OK")
            return connection
          })
      }
      let prepared = connections
      let replies = try await RacingClients.race(accounts) { n, side in
        (try? Self.put(prepared[n][side], TestPhoto.png(Array("last \(side)".utf8)))) ?? "no reply"
      }
      for (n, pair) in replies.enumerated() {
        #expect(pair.filter { Self.id($0) != nil }.count == 1, "racer\(n): \(pair)")
        #expect(
          pair.filter { $0.contains("LIMIT at most 100 documents") }.count == 1,
          "racer\(n): \(pair)")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      for node in nodes {
        for n in 0..<accounts {
          let connection = try RESPConnection(port: node.port)
          #expect(try connection.text("AUTH", "racer\(n)@x.org", "secret1") == "OK")
          #expect(try Self.listed(connection).count == 100)
        }
      }
    }
  }
}
