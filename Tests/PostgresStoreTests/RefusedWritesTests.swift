import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RedisTestSupport
import Testing

/// Writes the database never took (`TRYAGAIN`: the node could not reach it) leave nothing in
/// the node's memory either.
@Suite("Refused writes over PostgreSQL", .serialized)
struct RefusedWritesTests {
  /// Runs `body` while the database refuses every connection (its open ones ended), then lets
  /// connections in again and waits until `port`'s node writes.
  static func cutOff(_ url: String, node port: UInt16, _ body: () async throws -> Void)
    async throws
  {
    let database = TestDatabase(location: try PostgresLocation(url: url))
    let name = database.location.database
    try await database.connectBeside { connection in
      try await connection.query(
        PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) ALLOW_CONNECTIONS false"),
        logger: TestDatabase.logger)
      try await connection.query(
        """
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = \(name) AND pid <> pg_backend_pid()
        """, logger: TestDatabase.logger)
      do {
        try await body()
      } catch {
        _ = try? await connection.query(
          PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) ALLOW_CONNECTIONS true"),
          logger: TestDatabase.logger)
        throw error
      }
      try await connection.query(
        PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) ALLOW_CONNECTIONS true"),
        logger: TestDatabase.logger)
    }
    let admin = try RESPConnection(port: port, timeoutSeconds: 60)
    for _ in 0..<200 {
      if try admin.text("SET", "back", "1") == "OK" { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("the node never wrote again")
  }

  @Test(
    "a card's change, its new location, another card made primary and a pin vote that answered TRYAGAIN leave the node as before: the cards as they were, on the map where they were and not under the refused company, the share URL on the same card, the pin's score unchanged; and the same changes go through once the database is back"
  )
  func refusedChangesLeaveNothing() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let node = try NodesOverRESPTests.node(url, directory + "/a")
      let ana = try RESPConnection(port: node.port, timeoutSeconds: 60)
      let bob = try RESPConnection(port: node.port, timeoutSeconds: 60)
      let (anaId, anaName) = try ana.signUp("ana@x.org")
      _ = try bob.signUp("bob@x.org")
      let card = try ana.object(
        "CARD.CREATE", #"{"firstName":"Ana","company":"Acme","showOnMap":true}"#)
      let id = try #require(card["id"] as? Int)
      // A second card (a Pro account's), to be made primary while the database refuses.
      let madePro = try RESPConnection(port: node.port).text("ACCOUNT.PRO", "\(anaId)", "1")
      #expect(madePro.contains(#""isPro":true"#), "\(madePro)")
      let second = try #require(
        try ana.object("CARD.CREATE", #"{"firstName":"Anna"}"#)["id"] as? Int)
      let secondBefore = try ana.text("CARD.GET", "\(second)")
      _ = try ana.object("CARD.LOCATE", "\(id)", "2.3522", "48.8566")
      let pin = try ana.object("PIN.ADD", "2.35", "48.85", "100", "m", #"{"caption":"Seine"}"#)
      let pinId = "\(try #require(pin["id"] as? Int))"
      let openBefore = try bob.text("CARD.OPEN", anaName)
      let (cardBefore, pinBefore) = (
        try ana.text("CARD.GET", "\(id)"), try bob.text("PIN.GET", pinId)
      )
      let near = { (lon: String, lat: String, filter: [String]) throws -> String in
        try bob.command(
          ["CARD.SEARCH", "FROMLONLAT", lon, lat, "BYRADIUS", "5", "km"] + filter
        ).text
      }
      let (parisBefore, tokyoBefore) = (
        try near("2.35", "48.85", []), try near("139.69", "35.68", [])
      )

      try await Self.cutOff(url, node: node.port) {
        let refused = [
          try ana.text("CARD.UPDATE", "\(id)", #"{"company":"Globex"}"#),
          try ana.text("CARD.LOCATE", "\(id)", "139.69", "35.68"),
          try bob.text("PIN.VOTE", pinId, "UP"),
          try ana.text("CARD.PRIMARY", "\(second)"),
        ]
        #expect(refused.allSatisfy { $0.hasPrefix("TRYAGAIN") }, "\(refused)")
        #expect(try ana.text("CARD.GET", "\(id)") == cardBefore)
        #expect(try bob.text("PIN.GET", pinId) == pinBefore)
        #expect(try near("2.35", "48.85", []) == parisBefore)
        #expect(try near("2.35", "48.85", ["FILTER", "company", "Globex"]) == "*0\r\n")
        #expect(try near("139.69", "35.68", []) == tokyoBefore)
        #expect(try ana.text("CARD.GET", "\(second)") == secondBefore)
        let openDuring = try bob.text("CARD.OPEN", anaName)
        #expect(openDuring == openBefore, "\(openDuring) against \(openBefore)")
      }
      #expect(openBefore.contains(#""firstName":"Ana""#), "\(openBefore)")
      #expect(parisBefore.contains("Ana") && tokyoBefore == "*0\r\n")
      // Back: the same changes are made, and seen.
      #expect(
        try ana.object("CARD.UPDATE", "\(id)", #"{"company":"Globex"}"#)["company"] as? String
          == "Globex")
      #expect(try bob.object("PIN.VOTE", pinId, "UP")["ups"] as? Int == 1)
      #expect(try near("2.35", "48.85", ["FILTER", "company", "Globex"]).contains("Ana"))
      #expect(try ana.object("CARD.PRIMARY", "\(second)")["isPrimary"] as? Bool == true)
      #expect(try bob.text("CARD.OPEN", anaName).contains(#""firstName":"Anna""#))
    }
  }

  @Test(
    "a check-in elsewhere and a check-out that answered TRYAGAIN leave the visits as they were: the visit still open where it was, no visit at the other venue, for the visitor and the owner; once the database is back they go through, and a restart loads what memory held"
  )
  func refusedCheckInsLeaveNothing() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      var node = try NodesOverRESPTests.node(url, directory + "/a")
      let ana = try RESPConnection(port: node.port, timeoutSeconds: 60)
      var bob = try RESPConnection(port: node.port, timeoutSeconds: 60)
      _ = try ana.signUp("ana@x.org")
      _ = try bob.signUp("bob@x.org")
      let venues = try ["Nord", "Sud"].map { name in
        try #require(
          try ana.object("VENUE.CREATE", #"{"name":"\#(name)","lon":9.52,"lat":47.14}"#)["id"]
            as? Int)
      }
      let codes = try venues.map { try ana.text("VENUE.CODE", "\($0)") }
      _ = try bob.object("CHECKIN", codes[0])
      // Each reply's texts (a bulk string's, an array's items').
      let seen = { () throws -> [[String]] in
        [
          try CardsAcrossNodesTests.texts(bob, "CHECKIN.LAST"),
          try CardsAcrossNodesTests.texts(bob, "CHECKIN.HISTORY"),
          try CardsAcrossNodesTests.texts(ana, "VENUE.VISITORS", "\(venues[0])"),
          try CardsAcrossNodesTests.texts(ana, "VENUE.VISITORS", "\(venues[1])"),
        ]
      }
      let before = try seen()
      #expect(before[0].first?.contains(#""isOpen":true"#) == true, "\(before)")
      #expect(before[1].count == 1 && before[2].count == 1 && before[3].isEmpty, "\(before)")

      try await Self.cutOff(url, node: node.port) {
        let moved = try bob.text("CHECKIN", codes[1])
        #expect(moved.hasPrefix("TRYAGAIN"), "\(moved)")
        #expect(try seen() == before)
        let left = try bob.text("CHECKOUT")
        #expect(left.hasPrefix("TRYAGAIN"), "\(left)")
        #expect(try seen() == before)
      }
      // Back: the move goes through, and a restart loads what memory held.
      #expect(try bob.object("CHECKIN", codes[1])["venueId"] as? Int == venues[1])
      let after = try seen()
      #expect(after != before)
      try await node.crash(after: .zero)
      node = try NodesOverRESPTests.node(url, directory + "/a")
      bob = try RESPConnection(port: node.port, timeoutSeconds: 60)
      #expect(try bob.text("AUTH", "bob@x.org", "secret1") == "OK")
      #expect(try CardsAcrossNodesTests.texts(bob, "CHECKIN.HISTORY") == after[1])
    }
  }

  @Test(
    "WALLET.ADD, WALLET.DEL, an exchange and a new exchange request that answered TRYAGAIN leave the wallets and the pending requests as they were; once the database is back they go through, and a restart loads what memory held"
  )
  func refusedWalletChangesLeaveNothing() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      var node = try NodesOverRESPTests.node(url, directory + "/a")
      // Each with a card: its id and share code.
      let people = try ["ana", "bob", "carol"].map { name in
        let connection = try RESPConnection(port: node.port, timeoutSeconds: 60)
        let (id, _) = try connection.signUp("\(name)@x.org")
        let card = try connection.object("CARD.CREATE", #"{"firstName":"\#(name)"}"#)
        return (
          connection, id, try #require(card["id"] as? Int), try #require(card["code"] as? String)
        )
      }
      let (ana, anaId, _, anaCode) = people[0]
      let (bob, bobId, _, _) = people[1]
      let (carol, _, carolCard, carolCode) = people[2]
      // Bob holds carol's card; ana holds nobody's. Ana asked bob to exchange.
      #expect(try bob.object("WALLET.ADD", carolCode)["id"] as? Int == carolCard)
      _ = try ana.object("PRESENCE.SET", "9.5200", "47.1400")
      _ = try bob.object("PRESENCE.SET", "9.5210", "47.1405")
      _ = try carol.object("PRESENCE.SET", "9.5205", "47.1402")
      let asked = try ana.text("EXCHANGE.REQUEST", "\(bobId)")
      #expect(PeopleAcrossNodesTests.status(asked) == "pending", "\(asked)")
      let wallets = { () throws -> [[String]] in
        try [ana, bob].map { try CardsAcrossNodesTests.texts($0, "WALLET.LIST") }
      }
      let before = try wallets()
      #expect(before[0].count == 1 && before[1].count == 2, "\(before)")

      try await Self.cutOff(url, node: node.port) {
        let refused = [
          try bob.text("WALLET.ADD", anaCode), try bob.text("WALLET.DEL", "\(carolCard)"),
          try bob.text("EXCHANGE.REQUEST", "\(anaId)"),
          try carol.text("EXCHANGE.REQUEST", "\(anaId)"),
        ]
        #expect(refused.allSatisfy { $0.hasPrefix("TRYAGAIN") }, "\(refused)")
        #expect(try wallets() == before)
        #expect(try PeopleAcrossNodesTests.list(carol, "EXCHANGE.PENDING").isEmpty)
      }
      // Carol's request, sent again, is written this time.
      #expect(
        PeopleAcrossNodesTests.status(try carol.text("EXCHANGE.REQUEST", "\(anaId)")) == "pending")
      // Back: each goes through, and a restart loads what memory held.
      let answered = try bob.text("EXCHANGE.REQUEST", "\(anaId)")
      #expect(PeopleAcrossNodesTests.status(answered) == "exchanged", "\(answered)")
      #expect(try bob.text("WALLET.DEL", "\(carolCard)") == "1")
      let after = try wallets()
      // Ana's and bob's: each the other's card (carol's gone from bob's).
      #expect(after[0].count == 2 && after[0][1].contains(#""firstName":"bob""#), "\(after)")
      #expect(after[1].count == 2 && after[1][1].contains(#""firstName":"ana""#), "\(after)")
      try await node.crash(after: .zero)
      node = try NodesOverRESPTests.node(url, directory + "/a")
      let reloaded = try ["ana", "bob"].map { name in
        try CardsAcrossNodesTests.texts(
          PeopleAcrossNodesTests.signIn(node.port, name), "WALLET.LIST")
      }
      #expect(reloaded == after)
      let waiting = try PeopleAcrossNodesTests.list(
        PeopleAcrossNodesTests.signIn(node.port, "carol"), "EXCHANGE.PENDING")
      #expect(waiting.compactMap { $0["accountId"] as? Int } == [anaId], "\(waiting)")
    }
  }
}
