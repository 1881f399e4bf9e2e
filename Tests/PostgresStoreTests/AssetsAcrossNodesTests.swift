import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

/// Uploads across nodes that share one PostgreSQL: an upload on one node may be named by a card
/// on another (its owner's only); a card naming it deleted on the other node takes it, bytes
/// and all; the uploads an hour and the quota count on every node.
@Suite("Uploads across nodes over PostgreSQL", .serialized)
struct AssetsAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced

  static func node(_ url: String, _ directory: String, _ more: [String]) throws
    -> CardAtlasProcess
  {
    try CardAtlasProcess(directory: directory, arguments: ["--store", url] + more)
  }

  /// ASSET.PUT IMAGE with the fixture PNG: its URL, or the error.
  static func upload(_ connection: RESPConnection) throws -> String {
    let reply = try connection.command(bytes: [
      Array("ASSET.PUT".utf8), Array("IMAGE".utf8), try MediaFixtures.bytes("python.png"),
    ]).value
    switch reply {
    case .bulkString(let json):
      let object = try JSONSerialization.jsonObject(with: Data(String(buffer: json).utf8))
      return (object as? [String: Any])?["url"] as? String ?? "no url"
    case .error(let error): return error
    default: return "\(reply)"
    }
  }

  static func cardNaming(_ url: String) -> String { #"{"firstName":"Ana","imageUrl":"\#(url)"}"# }

  @Test(
    "an upload on A is named by its owner's card on B, refused to another account there; the card made on A and deleted on B takes the upload with it (its bytes leave the database); two uploads an hour count on both nodes"
  )
  func assetsTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let more = ["--uploads-per-hour", "3", "--free-card-limit", "3"]
      let a = try Self.node(url, directory + "/a", more)
      let b = try Self.node(url, directory + "/b", more)
      let onA = try RESPConnection(port: a.port)
      _ = try onA.signUp("ana@x.org")
      let first = try Self.upload(onA)
      #expect(first.hasPrefix("http"), "\(first)")
      let card = try onA.object("CARD.CREATE", Self.cardNaming(first))
      let cardId = try #require(card["id"] as? Int)
      let second = try Self.upload(onA)
      try await Self.synced(a.port, b.port)

      let onB = try RESPConnection(port: b.port)
      #expect(try onB.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(
        try onB.object("CARD.CREATE", Self.cardNaming(second))["imageUrl"] as? String == second)
      let bob = try RESPConnection(port: b.port)
      _ = try bob.signUp("bob@x.org")
      #expect(try bob.text("CARD.CREATE", Self.cardNaming(second)).contains("not yours"))
      #expect(try await PinsAcrossNodesTests.mediaRows(url) == 2)

      // The third upload of the hour on B, then none on A.
      #expect(try Self.upload(onB).hasPrefix("http"))
      try PeopleAcrossNodesTests.newsSynced(from: b.port, to: a.port)
      #expect(try Self.upload(onA).hasPrefix("LIMIT at most 3 uploads an hour"))

      // The card made on A, deleted on B: its upload goes, on both nodes.
      #expect(try onB.text("CARD.DEL", "\(cardId)") == "1")
      try await Self.synced(b.port, a.port)
      #expect(try onA.text("CARD.CREATE", Self.cardNaming(first)).contains("no such asset"))
      let rows = try await PinsAcrossNodesTests.mediaRows(url, reaching: 2)
      #expect(rows == 2, "the first upload's bytes went with the card; the others stay")
    }
  }

  @Test(
    "four accounts with room for one more upload each upload on both nodes at the same moment: the database keeps one, the other answers QUOTA"
  )
  func racingQuota() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let more = ["--upload-quota", "1500"]
      let nodes = [
        try Self.node(url, directory + "/a", more), try Self.node(url, directory + "/b", more),
      ]
      let accounts = 4
      var connections: [[RESPConnection]] = []
      for n in 0..<accounts {
        _ = try RESPConnection(port: nodes[0].port).signUp("racer\(n)@x.org")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
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
        (try? Self.upload(prepared[n][side])) ?? "no reply"
      }
      for (n, pair) in replies.enumerated() {
        #expect(pair.filter { $0.hasPrefix("http") }.count == 1, "racer\(n): \(pair)")
        #expect(pair.filter { $0.hasPrefix("QUOTA") }.count == 1, "racer\(n): \(pair)")
      }
    }
  }
}
