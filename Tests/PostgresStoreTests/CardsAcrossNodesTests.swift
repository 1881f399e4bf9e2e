import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RESP
import RedisTestSupport
import Synchronization
import Testing

/// The cards of nodes that share one PostgreSQL: made, changed, found on the map, held in
/// wallets and deleted on one node, as every other node then answers them; an owner's plan and
/// its one primary card hold across nodes.
@Suite("Cards across nodes over PostgreSQL", .serialized)
struct CardsAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced

  /// The ids `CARD.SEARCH` finds within 5 km of Paris's centre.
  static func nearParis(_ connection: RESPConnection) throws -> [Int] {
    guard
      case .array(let hits) = try connection.command([
        "CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "5", "km",
      ]).value
    else { return [] }
    return hits.compactMap { hit -> Int? in
      guard case .array(let fields) = hit else { return nil }
      switch fields.first {
      case .bulkString(let id)?: return Int(String(buffer: id))
      case .integer(let id)?: return Int(id)
      default: return nil
      }
    }
  }

  /// Every bulk string of an array reply, nested arrays flattened.
  /// How many cards each owner has in the database at `url`.
  static func cardsPerOwner(_ url: String) async throws -> [Int64] {
    try await TestDatabase(location: try PostgresLocation(url: url)).connect { connection in
      try await connection.query(
        "SELECT count(*)::bigint FROM cards GROUP BY owner_id", logger: TestDatabase.logger
      ).collect().map { try $0.decode(Int64.self) }
    }
  }

  static func texts(_ connection: RESPConnection, _ arguments: String...) throws -> [String] {
    func flat(_ value: RESPValue) -> [String] {
      switch value {
      case .bulkString(let b): [String(buffer: b)]
      case .array(let items): items.flatMap(flat)
      default: []
      }
    }
    return flat(try connection.command(arguments).value)
  }

  @Test(
    "a card made on one node is found on the other's map, read there, changed there and seen back; a wallet there holds it; deleted on one node it leaves both maps and the wallet; a node restarted loads it all; a card located by its address on one node is on the other's map"
  )
  func cardsTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      var b = try NodesOverRESPTests.node(url, directory + "/b")
      let ana = try RESPConnection(port: a.port)
      _ = try ana.signUp("ana@x.org")
      let card = try ana.object(
        "CARD.CREATE", #"{"firstName":"Ana","company":"Acme","showOnMap":true}"#)
      let id = try #require(card["id"] as? Int)
      let code = try #require(card["code"] as? String)
      #expect(try ana.object("CARD.LOCATE", "\(id)", "2.3522", "48.8566")["id"] as? Int == id)
      try await Self.synced(a.port, b.port)
      let bob = try RESPConnection(port: b.port)
      _ = try bob.signUp("bob@x.org")
      #expect(try Self.nearParis(bob) == [id], "B's map has A's card")
      #expect(try bob.object("CARD.GET", "\(id)")["company"] as? String == "Acme")

      // Changed on B by its owner: A reads the change, and B's map follows the move.
      let anaOnB = try RESPConnection(port: b.port)
      #expect(try anaOnB.text("AUTH", "ana@x.org", "secret1") == "OK")
      let updated = try anaOnB.object("CARD.UPDATE", "\(id)", #"{"company":"Beta"}"#)
      #expect(updated["company"] as? String == "Beta")
      #expect(try anaOnB.text("CARD.UPDATE", "\(id + 1)", "{}").hasPrefix("NOTFOUND"))
      #expect(try bob.text("CARD.UPDATE", "\(id)", "{}").hasPrefix("NOPERM"), "not bob's")
      try await Self.synced(b.port, a.port)
      #expect(try ana.object("CARD.GET", "\(id)")["company"] as? String == "Beta")

      // Bob holds it in his wallet on B; A's view of the card's holders sees it.
      #expect(try bob.object("WALLET.ADD", code)["id"] as? Int == id)
      try await Self.synced(b.port, a.port)
      let stats = try ana.object("CARD.STATS", "\(id)")
      #expect(stats["walletSaves"] as? Int == 1)
      #expect(stats["total"] as? Int == 1, "bob's CARD.GET on B counted: \(stats)")

      // B killed with -9 comes back with the card, on its map and in bob's wallet.
      try await b.crash(after: .zero)
      b = try NodesOverRESPTests.node(url, directory + "/b")
      let bob2 = try RESPConnection(port: b.port)
      #expect(try bob2.text("AUTH", "bob@x.org", "secret1") == "OK")
      #expect(try Self.nearParis(bob2) == [id])
      #expect(try Self.texts(bob2, "WALLET.LIST").contains { $0.contains("Beta") })

      // Moved far away on A: off B's map near Paris; then deleted: gone from the wallet too.
      _ = try ana.object("CARD.LOCATE", "\(id)", "-70", "-30")
      try await Self.synced(a.port, b.port)
      #expect(try Self.nearParis(bob2).isEmpty)
      #expect(try ana.text("CARD.DEL", "\(id)") == "1")
      try await Self.synced(a.port, b.port)
      #expect(try bob2.text("CARD.GET", "\(id)").hasPrefix("NOTFOUND"))
      #expect(try !Self.texts(bob2, "WALLET.LIST").contains { $0.contains("Beta") })
      let anaOnB2 = try RESPConnection(port: b.port)
      #expect(try anaOnB2.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try anaOnB2.text("CARD.GET", "\(id)").hasPrefix("NOTFOUND"))

      // The server's geocoder (the offline gazetteer) serves such a node too: a card located by
      // its address on B is on A's map there.
      let bobCard = try bob2.object(
        "CARD.CREATE",
        #"{"firstName":"Bob","showOnMap":true,"address":{"street":"Städtle 1","city":"Vaduz","country":"LI"}}"#
      )
      let bobId = try #require(bobCard["id"] as? Int)
      let located = try bob2.object("CARD.LOCATE", "\(bobId)", "ADDRESS")
      let latitude = (located["location"] as? [String: Any])?["lat"] as? Double ?? 0
      #expect(abs(latitude - 47.14) < 0.05, "\(located)")
      try await Self.synced(b.port, a.port)
      let nearVaduz = try ana.command(
        "CARD.SEARCH", "FROMLONLAT", "9.52", "47.14", "BYRADIUS", "5", "km"
      ).value
      guard case .array(let hits) = nearVaduz else {
        Issue.record("CARD.SEARCH answered \(nearVaduz)")
        return
      }
      #expect(hits.count == 1)
    }
  }

  @Test(
    "one free account makes cards on two nodes at once: the database keeps one (its plan's limit), the other is refused with LIMIT and forgotten; both nodes then hold the same one card, primary"
  )
  func racingCards() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let nodes = [
        try NodesOverRESPTests.node(url, directory + "/a"),
        try NodesOverRESPTests.node(url, directory + "/b"),
      ]
      let setup = try RESPConnection(port: nodes[0].port)
      for n in 0..<8 { _ = try setup.object("ACCOUNT.CREATE", "racer\(n)@x.org", "secret1") }
      try await Self.synced(nodes[0].port, nodes[1].port)
      let replies = Mutex<[[String]]>(Array(repeating: [], count: 8))
      let threads = nodes.map(\.port).map { port in
        Thread {
          for n in 0..<8 {
            guard let connection = try? RESPConnection(port: port, timeoutSeconds: 60),
              (try? connection.text("AUTH", "racer\(n)@x.org", "secret1")) == "OK"
            else { continue }
            let reply = (try? connection.text("CARD.CREATE", #"{"firstName":"R"}"#)) ?? "?"
            replies.withLock { $0[n].append(reply) }
          }
        }
      }
      for thread in threads { thread.start() }
      for _ in 0..<1200 where replies.withLock({ $0.map(\.count).reduce(0, +) }) < 16 {
        try await Task.sleep(for: .milliseconds(50))
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      for (n, answers) in replies.withLock({ $0 }).enumerated() {
        #expect(answers.count == 2)
        #expect(answers.filter { $0.hasPrefix("{") }.count == 1, "one card made: \(answers)")
        #expect(answers.filter { $0.hasPrefix("LIMIT") }.count == 1, "one refused: \(answers)")
        var mine: [String] = []
        for node in nodes {
          let connection = try RESPConnection(port: node.port)
          #expect(try connection.text("AUTH", "racer\(n)@x.org", "secret1") == "OK")
          mine.append(try Self.texts(connection, "CARD.MINE").joined(separator: "\n"))
        }
        #expect(mine[0] == mine[1], "both nodes hold the same cards of racer\(n)")
        #expect(mine[0].contains(#""isPrimary":true"#))
      }
      #expect(try await Self.cardsPerOwner(url) == Array(repeating: 1, count: 8))
    }
  }

  @Test(
    "twenty-four free accounts' new cards sent at once to one node and sixteen of them to another: each group commit's cards go in one call, the database keeps one card per account, refuses the rest with LIMIT, and the eight uncontested are all made"
  )
  func racingCardBatches() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      // Many sign-ups from one address.
      let nodes = try ["a", "b"].map {
        try CardAtlasProcess(
          directory: directory + "/" + $0,
          arguments: ["--store", url, "--signups-per-address", "0"])
      }
      let setup = try RESPConnection(port: nodes[0].port)
      // A session each: resuming one costs no password hash.
      let tokens = try (0..<24).map { n in
        _ = try setup.object("ACCOUNT.CREATE", "batch\(n)@x.org", "secret1")
        return try RESPConnection(port: nodes[0].port).text(
          "SESSION.OPEN", "batch\(n)@x.org", "secret1")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      func signedIn(_ n: Int, _ port: UInt16) throws -> RESPConnection {
        let connection = try RESPConnection(port: port, timeoutSeconds: 60)
        _ = try connection.object("SESSION.RESUME", tokens[n])
        return connection
      }
      // Signed in first, then every CARD.CREATE sent before any reply is read.
      let senders = try [(nodes[0].port, 0..<24), (nodes[1].port, 0..<16)].flatMap {
        port, range in try range.map { n in (n, try signedIn(n, port)) }
      }
      for (_, connection) in senders {
        try connection.send(RESPConnection.frame(["CARD.CREATE", #"{"firstName":"B"}"#]))
      }
      var replies = Array(repeating: [String](), count: 24)
      for (n, connection) in senders { replies[n].append(try connection.reply().text) }
      for (n, answers) in replies.enumerated() {
        #expect(answers.filter { $0.hasPrefix("$") }.count == 1, "batch\(n): \(answers)")
        #expect(answers.filter { $0.hasPrefix("-LIMIT") }.count == answers.count - 1, "\(answers)")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      for n in 0..<24 {
        let mine = try nodes.map {
          try Self.texts(try signedIn(n, $0.port), "CARD.MINE").joined(separator: "\n")
        }
        #expect(mine[0] == mine[1] && mine[0].contains(#""isPrimary":true"#), "batch\(n): \(mine)")
      }
      #expect(try await Self.cardsPerOwner(url) == Array(repeating: 1, count: 24))
    }
  }

  @Test(
    "one card changed on two nodes at once, many times: both nodes end with the card the database holds"
  )
  func racingUpdatesConverge() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let nodes = [
        try NodesOverRESPTests.node(url, directory + "/a"),
        try NodesOverRESPTests.node(url, directory + "/b"),
      ]
      let owner = try RESPConnection(port: nodes[0].port)
      _ = try owner.signUp("ana@x.org")
      let id = try #require(try owner.object("CARD.CREATE", #"{"firstName":"A"}"#)["id"] as? Int)
      try await Self.synced(nodes[0].port, nodes[1].port)
      let done = Mutex(0)
      let threads = nodes.map(\.port).enumerated().map { n, port in
        Thread {
          defer { done.withLock { $0 += 1 } }
          guard let connection = try? RESPConnection(port: port, timeoutSeconds: 60),
            (try? connection.text("AUTH", "ana@x.org", "secret1")) == "OK"
          else { return }
          for i in 0..<150 {
            _ = try? connection.text("CARD.UPDATE", "\(id)", #"{"company":"n\#(n)-\#(i)"}"#)
          }
        }
      }
      for thread in threads { thread.start() }
      for _ in 0..<1200 where done.withLock({ $0 }) < 2 {
        try await Task.sleep(for: .milliseconds(50))
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      let database = TestDatabase(location: try PostgresLocation(url: url))
      let stored = try await database.connect { connection in
        try await connection.query(
          "SELECT fields->>'company' FROM cards WHERE id = \(Int64(id))",
          logger: TestDatabase.logger
        ).collect().first?.decode(String.self)
      }
      for node in nodes {
        let reader = try RESPConnection(port: node.port)
        #expect(try reader.text("AUTH", "ana@x.org", "secret1") == "OK")
        let company = try reader.object("CARD.GET", "\(id)")["company"]
        #expect(company as? String == stored, "node on \(node.port) holds the stored card")
      }
    }
  }

  @Test(
    "look-ups by share code are counted on every node: with two an hour, one on A and one on B leave none, and the third on A is refused"
  )
  func codeReadsAcrossNodes() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let limit = ["--code-reads-per-account", "2"]
      let a = try CardAtlasProcess(
        directory: directory + "/a", arguments: ["--store", url] + limit)
      let b = try CardAtlasProcess(
        directory: directory + "/b", arguments: ["--store", url] + limit)
      let ana = try RESPConnection(port: a.port)
      _ = try ana.signUp("ana@x.org")
      let code = try #require(
        try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)["code"] as? String)
      let bob = try RESPConnection(port: a.port)
      _ = try bob.signUp("bob@x.org")
      try await Self.synced(a.port, b.port)
      let bobOnB = try RESPConnection(port: b.port)
      #expect(try bobOnB.text("AUTH", "bob@x.org", "secret1") == "OK")
      #expect(try bob.object("CARD.GET", code)["firstName"] as? String == "Ana")
      #expect(try bobOnB.object("CARD.GET", code)["firstName"] as? String == "Ana")
      try PeopleAcrossNodesTests.newsSynced(from: b.port, to: a.port)
      let refused = try bob.text("CARD.GET", code)
      #expect(refused.hasPrefix("LIMIT at most 2 cards by code an hour"), "\(refused)")
    }
  }
}
