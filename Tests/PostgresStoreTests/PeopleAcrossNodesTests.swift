import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

/// numo's people nearby across nodes that share one PostgreSQL: a presence set on one node is
/// found from another, an exchange asked on one node is completed on another and heard there,
/// two nodes completing one pair at once leave one exchange, and the bounds that stop
/// trilateration count an account's searches on every node.
@Suite("People across nodes over PostgreSQL", .serialized)
struct PeopleAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced

  /// Returns once what `from` published before reaches `to`: one node's messages travel in
  /// order, so a marker heard there follows everything sent before it (presences, counts).
  static func newsSynced(from: UInt16, to: UInt16) throws {
    let channel = "barrier-\(UUID().uuidString)"
    let listener = try RESPConnection(port: to, timeoutSeconds: 1)
    #expect(try listener.command("SUBSCRIBE", channel).text.contains(channel))
    let publisher = try RESPConnection(port: from)
    // The other node's LISTEN may come a moment after it answers: publish until heard.
    for _ in 0..<30 {
      _ = try publisher.command("PUBLISH", channel, "mark")
      if let heard = try? listener.reply(), heard.text.contains("mark") { return }
    }
    Issue.record("the marker never reached the other node")
  }

  /// A signed-in account with a primary card, and its id.
  static func person(_ port: UInt16, _ name: String) throws -> (RESPConnection, Int) {
    let connection = try RESPConnection(port: port)
    let (id, _) = try connection.signUp("\(name)@x.org")
    _ = try connection.object("CARD.CREATE", #"{"firstName":"\#(name)"}"#)
    return (connection, id)
  }

  /// The same account signed in on another node.
  static func signIn(_ port: UInt16, _ name: String) throws -> RESPConnection {
    let connection = try RESPConnection(port: port)
    #expect(try connection.text("AUTH", "\(name)@x.org", "secret1") == "OK")
    return connection
  }

  /// A reply's JSON objects (an array of bulk strings); a reply of another kind records an
  /// issue.
  static func list(_ connection: RESPConnection, _ arguments: String...) throws -> [[String: Any]] {
    let reply = try connection.command(arguments).value
    guard case .array(let items) = reply else {
      Issue.record("\(arguments[0]) answered \(reply)")
      return []
    }
    return items.compactMap { item in
      guard case .bulkString(let b) = item else { return nil }
      return try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
        as? [String: Any]
    }
  }

  /// The account ids PEOPLE.NEARBY finds within 2 km.
  static func nearby(_ connection: RESPConnection) throws -> [Int] {
    try list(connection, "PEOPLE.NEARBY", "2", "km").compactMap { $0["accountId"] as? Int }
  }

  /// The other sides of the account's exchanges.
  static func exchanged(_ connection: RESPConnection) throws -> [Int] {
    try list(connection, "EXCHANGE.LIST").compactMap { $0["accountId"] as? Int }
  }

  static func status(_ reply: String) -> String {
    guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
    else { return reply }
    return object["status"] as? String ?? reply
  }

  @Test(
    "a presence set on one node is found by PEOPLE.NEARBY on another, and cleared there; an exchange asked on B is pending on A, completed on A, heard by a subscriber on B, listed and in the wallet on B; a node killed and started again loads the exchange"
  )
  func peopleTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      var b = try NodesOverRESPTests.node(url, directory + "/b")
      let (ana, anaId) = try Self.person(a.port, "ana")
      let (bob, bobId) = try Self.person(b.port, "bob")
      try await Self.synced(a.port, b.port)
      try await Self.synced(b.port, a.port)

      _ = try ana.object("PRESENCE.SET", "9.5200", "47.1400")
      _ = try bob.object("PRESENCE.SET", "9.5210", "47.1405")
      try Self.newsSynced(from: a.port, to: b.port)
      try Self.newsSynced(from: b.port, to: a.port)
      #expect(try Self.nearby(bob) == [anaId], "B finds the presence set on A")
      #expect(try Self.nearby(ana) == [bobId], "A finds the presence set on B")

      // Bob asks on B; ana sees it pending on A and answers there; bob hears it on B.
      let heard = try Self.signIn(b.port, "bob")
      #expect(try heard.command("SUBSCRIBE", "account:\(bobId)").text.contains("account"))
      #expect(Self.status(try bob.text("EXCHANGE.REQUEST", "\(anaId)")) == "pending")
      try await Self.synced(b.port, a.port)
      let pending = try Self.list(ana, "EXCHANGE.PENDING")
      #expect(pending.compactMap { $0["accountId"] as? Int } == [bobId], "\(pending)")
      #expect(Self.status(try ana.text("EXCHANGE.REQUEST", "\(bobId)")) == "exchanged")
      let notice = try heard.reply().text
      #expect(notice.contains("\"event\":\"exchange\""), "\(notice)")

      try await Self.synced(a.port, b.port)
      #expect(try Self.exchanged(bob) == [anaId])
      #expect(try Self.list(bob, "EXCHANGE.PENDING").isEmpty)
      #expect(try CardsAcrossNodesTests.texts(bob, "WALLET.LIST").contains { $0.contains("ana") })
      #expect(try Self.nearby(bob).isEmpty, "exchanged people are not listed again")
      #expect(try bob.text("EXCHANGE.REQUEST", "\(anaId)").hasPrefix("ERR already exchanged"))

      // Cleared on A: gone from B's answers (carol, not exchanged with ana, looks).
      let (carol, _) = try Self.person(b.port, "carol")
      _ = try carol.object("PRESENCE.SET", "9.5200", "47.1401")
      #expect(try Self.nearby(carol).contains(anaId))
      #expect(try ana.text("PRESENCE.CLEAR") == "1")
      try Self.newsSynced(from: a.port, to: b.port)
      #expect(try !Self.nearby(carol).contains(anaId))

      // B killed with -9 loads the exchange from the database.
      try await b.crash(after: .zero)
      b = try NodesOverRESPTests.node(url, directory + "/b")
      let bob2 = try Self.signIn(b.port, "bob")
      #expect(try Self.exchanged(bob2) == [anaId])
      #expect(try bob2.text("EXCHANGE.REQUEST", "\(anaId)").hasPrefix("ERR already exchanged"))
    }
  }

  @Test(
    "a node started after presences were set finds them: the nodes tell a node that joins the presences set through them (not one cleared before)"
  )
  func laterNodeHearsPresences() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let (ana, anaId) = try Self.person(a.port, "ana")
      let (eve, _) = try Self.person(a.port, "eve")
      _ = try ana.object("PRESENCE.SET", "9.5200", "47.1400")
      _ = try eve.object("PRESENCE.SET", "9.5205", "47.1402")
      #expect(try eve.text("PRESENCE.CLEAR") == "1")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      try await Self.synced(a.port, b.port)
      let (dan, _) = try Self.person(b.port, "dan")
      _ = try dan.object("PRESENCE.SET", "9.5210", "47.1405")
      // B's hello went before its marker, and A's answer before A's marker.
      try Self.newsSynced(from: b.port, to: a.port)
      try Self.newsSynced(from: a.port, to: b.port)
      #expect(
        try Self.nearby(dan) == [anaId],
        "B finds ana's presence, set on A before B started, and not eve's")
      // And A hears dan's, set on B, as always.
      try Self.newsSynced(from: b.port, to: a.port)
      #expect(try Self.nearby(ana).count == 1)
    }
  }

  @Test(
    "a request made on A while B makes the same request and completes the pair: every node ends with the exchange and no request pending, the one made on A pending or 'already exchanged'"
  )
  func requestBesideAnExchange() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let nodes = [
        try NodesOverRESPTests.node(url, directory + "/a"),
        try NodesOverRESPTests.node(url, directory + "/b"),
      ]
      let count = 8
      // Each asker and answerer signed in on both nodes, [A, B]; their ids.
      var askers: [[RESPConnection]] = []
      var answerers: [[RESPConnection]] = []
      var pairs: [(asker: Int, answerer: Int)] = []
      for n in 0..<count {
        let (asker, askerId) = try Self.person(nodes[0].port, "asker\(n)")
        let (answerer, answererId) = try Self.person(nodes[1].port, "answerer\(n)")
        pairs.append((askerId, answererId))
        _ = try asker.object("PRESENCE.SET", String(10 + n), "45")
        _ = try answerer.object("PRESENCE.SET", String(10 + n), "45.001")
        askers.append([asker, try Self.signIn(nodes[1].port, "asker\(n)")])
        answerers.append([try Self.signIn(nodes[0].port, "answerer\(n)"), answerer])
      }
      try Self.newsSynced(from: nodes[0].port, to: nodes[1].port)
      try Self.newsSynced(from: nodes[1].port, to: nodes[0].port)
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      // On B the asker asks and the answerer answers; on A, the asker asks the moment B's
      // answer comes, before A has read B's writes (or at once, now and then).
      let answered = Atomic<Int>(0)
      let (onA, onB, ids) = (
        askers.map { $0[0] }, zip(askers, answerers).map { ($0[1], $1[1]) }, pairs
      )
      let replies = try await RacingClients.race(count) { n, side in
        func ask(_ connection: RESPConnection, _ other: Int) -> String {
          Self.status((try? connection.text("EXCHANGE.REQUEST", "\(other)")) ?? "no reply")
        }
        if side == 1 {
          while n % 4 != 0, answered.load(ordering: .acquiring) <= n {}
          return "A " + ask(onA[n], ids[n].answerer)
        }
        defer { answered.store(n + 1, ordering: .releasing) }
        return "B \(ask(onB[n].0, ids[n].answerer)), \(ask(onB[n].1, ids[n].asker))"
      }
      for (n, pair) in replies.enumerated() {
        let onNodeA = pair.first { $0.hasPrefix("A ") } ?? ""
        #expect(
          ["A pending", "A ERR already exchanged with this account"].contains(onNodeA),
          "asker\(n): \(pair)")
        #expect(pair.contains("B pending, exchanged"), "asker\(n): \(pair)")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      for side in 0..<2 {
        for n in 0..<count {
          for (name, connection, other) in [
            ("asker\(n)", askers[n][side], pairs[n].answerer),
            ("answerer\(n)", answerers[n][side], pairs[n].asker),
          ] {
            #expect(try Self.exchanged(connection) == [other], "\(name) on node \(side)")
            let pending = try Self.list(connection, "EXCHANGE.PENDING")
            #expect(pending.isEmpty, "\(name) on node \(side): \(pending)")
          }
        }
      }
    }
  }

  @Test(
    "six people each answer a pending request on two nodes at once: the database keeps one exchange per pair, one reply is the exchange and the other 'already exchanged', and both nodes list the same one"
  )
  func racingExchanges() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let nodes = [
        try NodesOverRESPTests.node(url, directory + "/a"),
        try NodesOverRESPTests.node(url, directory + "/b"),
      ]
      var askers: [Int] = []
      for n in 0..<6 {
        let (asker, askerId) = try Self.person(nodes[0].port, "asker\(n)")
        let (answerer, answererId) = try Self.person(nodes[1].port, "answerer\(n)")
        askers.append(askerId)
        // Each pair in a place of its own, the answerer's presence set on the other node.
        let longitude = String(10 + n)
        _ = try answerer.object("PRESENCE.SET", longitude, "45")
        _ = try asker.object("PRESENCE.SET", longitude, "45.001")
        try Self.newsSynced(from: nodes[1].port, to: nodes[0].port)
        try await Self.synced(nodes[1].port, nodes[0].port)
        #expect(Self.status(try asker.text("EXCHANGE.REQUEST", "\(answererId)")) == "pending")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      // Signed in beforehand on both nodes, then sent together: neither node has seen the
      // other's exchange when it makes its own.
      var connections: [[RESPConnection]] = []
      for n in 0..<6 {
        connections.append(try nodes.map { try Self.signIn($0.port, "answerer\(n)") })
      }
      let prepared = connections
      let askerIds = askers
      let replies = try await RacingClients.race(6) { n, side in
        Self.status(
          (try? prepared[n][side].text("EXCHANGE.REQUEST", "\(askerIds[n])")) ?? "no reply")
      }
      for (n, pair) in replies.enumerated() {
        #expect(
          pair.sorted() == ["ERR already exchanged with this account", "exchanged"],
          "answerer\(n): \(pair)")
      }
      try await Self.synced(nodes[0].port, nodes[1].port)
      try await Self.synced(nodes[1].port, nodes[0].port)
      for node in nodes {
        for n in 0..<6 {
          #expect(try Self.exchanged(Self.signIn(node.port, "answerer\(n)")) == [askers[n]])
          #expect(try Self.list(Self.signIn(node.port, "asker\(n)"), "EXCHANGE.PENDING").isEmpty)
        }
      }
    }
  }

  @Test(
    "the places one account searches from are counted on every node: six on A and four on B reach the hour's ten, and the eleventh on B is refused"
  )
  func searchCellsAcrossNodes() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      let (onA, _) = try Self.person(a.port, "eve")
      try await Self.synced(a.port, b.port)
      let onB = try Self.signIn(b.port, "eve")
      // Cells 100 m apart: 0.002° of latitude is about 220 m.
      func search(_ connection: RESPConnection, _ cell: Int) throws -> String {
        _ = try connection.object(
          "PRESENCE.SET", "9.52", String(format: "%.3f", 47 + 0.002 * Double(cell)))
        return try connection.text("PEOPLE.NEARBY", "1", "km")
      }
      for cell in 0..<6 { #expect(try !search(onA, cell).hasPrefix("LIMIT")) }
      try Self.newsSynced(from: a.port, to: b.port)
      for cell in 6..<10 { #expect(try !search(onB, cell).hasPrefix("LIMIT")) }
      let refused = try search(onB, 10)
      #expect(refused.hasPrefix("LIMIT PEOPLE.NEARBY from at most 10 places"), "\(refused)")
    }
  }
}
