import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// What holders and owners hear over pub/sub, card views and their statistics, through the
/// protocol over real sockets.
@Suite("Notifications")
struct NotificationTests {
  static let noPerm =
    "NOPERM this user has no permissions to access one of the channels used as arguments"

  static func card(_ first: String, _ more: String = "") -> String {
    WalletTests.card(first, more)
  }

  /// A message (RESP2 array or RESP3 push) as its channel and its JSON.
  static func message(_ value: RESPValue) -> (channel: String, json: [String: Any])? {
    let items: [RESPValue]
    switch value {
    case .array(let a), .push(let a): items = a
    default: return nil
    }
    guard items.count == 3, case .bulkString(let kind) = items[0],
      String(buffer: kind) == "message", case .bulkString(let channel) = items[1],
      case .bulkString(let payload) = items[2],
      let json = try? JSONSerialization.jsonObject(with: Data(String(buffer: payload).utf8))
        as? [String: Any]
    else { return nil }
    return (String(buffer: channel), json)
  }

  /// The next message on a subscribed connection.
  static func next(_ c: RESPConnection) throws -> (channel: String, json: [String: Any]) {
    let reply = try c.reply()
    guard let message = message(reply.value) else {
      throw RESPConnection.Failed(description: "not a message: \(reply.text)")
    }
    return message
  }

  /// Nothing was published to a RESP2 subscriber: its PING's answer is the next frame (a
  /// message published before the command that was checked would come first).
  static func heardNothing(_ c: RESPConnection) throws -> Bool {
    try c.command("PING").text == "*2\r\n$4\r\npong\r\n$0\r\n\r\n"
  }

  /// A signed-in connection subscribed (RESP2) to the account's channel.
  static func listener(_ server: TestDaemon, _ email: String, _ channel: String) throws
    -> RESPConnection
  {
    let c = try server.connect()
    _ = try c.text("AUTH", email, "secret1")
    #expect(try c.command("SUBSCRIBE", channel).text.hasPrefix("*3\r\n$9\r\nsubscribe"))
    return c
  }

  @Test(
    "An account hears its own wallet:<id> and account:<id> only: others' channels, other channels, patterns and PUBLISH are refused; signed out, account channels are NOPERM"
  )
  func channelRules() async throws {
    let server = try await TestDaemon()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (_, boID, _) = try server.signedIn("bo@x.org")
    #expect(try ana.text("PUBLISH", "wallet:\(anaID)", "x").hasPrefix("NOPERM"))
    #expect(try ana.text("PUBSUB", "CHANNELS").hasPrefix("NOPERM"))
    for channel in ["wallet:\(boID)", "account:\(boID)", "news", "wallet:0\(anaID)"] {
      #expect(try ana.text("SUBSCRIBE", channel) == Self.noPerm, "\(channel)")
    }
    #expect(try ana.text("SUBSCRIBE", "wallet:\(anaID)", "wallet:\(boID)") == Self.noPerm)
    for pattern in ["wallet:\(anaID)", "*", "account:*"] {
      #expect(try ana.text("PSUBSCRIBE", pattern) == Self.noPerm, "\(pattern)")
    }
    #expect(
      try ana.command("SUBSCRIBE", "wallet:\(anaID)", "account:\(anaID)").text
        == "*3\r\n$9\r\nsubscribe\r\n$\("wallet:\(anaID)".utf8.count)\r\nwallet:\(anaID)\r\n:1\r\n")
    #expect(try ana.reply().text.hasSuffix(":2\r\n"))
    // Subscribed in RESP2: only Redis's subscribed context.
    #expect(try ana.text("CARD.MINE").hasPrefix("ERR Can't execute 'card.mine'"))
    #expect(try ana.command("UNSUBSCRIBE").text.contains("unsubscribe"))
    #expect(try ana.reply().text.hasSuffix(":0\r\n"))
    #expect(try ana.command("CARD.MINE").text == "*0\r\n")

    let signedOut = try server.connect()
    for channel in ["wallet:\(anaID)", "account:\(anaID)"] {
      #expect(try signedOut.text("SUBSCRIBE", channel) == Self.noPerm, "\(channel)")
    }
    for pattern in ["wallet:*", "*", "a*", "[aw]*:1"] {
      #expect(try signedOut.text("PSUBSCRIBE", pattern) == Self.noPerm, "\(pattern)")
    }
    #expect(try signedOut.text("PUBLISH", "account:\(anaID)", "forged") == Self.noPerm)
    #expect(try signedOut.command("SUBSCRIBE", "news").text.hasSuffix(":1\r\n"))
    await server.stop()
  }

  @Test(
    "Holders hear a held card's changes (CARD.UPDATE, CARD.LOCATE, CARD.PRIMARY, Pro ending) and its removal (CARD.DEL, the owner's ACCOUNT.DELETE) once durable: a RESP2 subscriber, and RESP3 pushes on a connection that runs commands"
  )
  func holdersHear() async throws {
    let server = try await TestDaemon()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, boID, _) = try server.signedIn("bo@x.org")
    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "1")
    let primary = try ana.object("CARD.CREATE", Self.card("Ana", #""company":"Acme""#))
    let second = try ana.object("CARD.CREATE", Self.card("Ana", #""company":"Side""#))
    let (primaryID, secondID) = (primary["id"] as? Int ?? 0, second["id"] as? Int ?? 0)
    _ = try bo.object("WALLET.ADD", primary["code"] as? String ?? "")
    _ = try bo.object("WALLET.ADD", second["code"] as? String ?? "")
    let boHears = try Self.listener(server, "bo@x.org", "wallet:\(boID)")

    // Cy in RESP3: subscribed, and running commands on the same connection.
    let cy = try server.connect()
    _ = try cy.command("ACCOUNT.CREATE", "cy@x.org", "secret1")
    guard case .map = try cy.command("HELLO", "3", "AUTH", "cy@x.org", "secret1").value else {
      Issue.record("HELLO 3 AUTH failed")
      return
    }
    let cyID = try cy.object("WHOAMI")["id"] as? Int ?? 0
    _ = try cy.object("WALLET.ADD", primary["code"] as? String ?? "")
    #expect(
      try cy.command("SUBSCRIBE", "wallet:\(cyID)").text.hasPrefix(">3\r\n$9\r\nsubscribe"))
    var cyHeard: [[String: Any]] = []
    /// Runs a command on cy's connection; keeps the pushes that come with its reply.
    func onCy(_ arguments: String...) throws -> RESPValue {
      try cy.send(RESPConnection.frame(arguments))
      while true {
        let reply = try cy.reply()
        guard case .push = reply.value else { return reply.value }
        if let message = Self.message(reply.value) {
          #expect(message.channel == "wallet:\(cyID)")
          cyHeard.append(message.json)
        }
      }
    }

    _ = try ana.object("CARD.UPDATE", "\(primaryID)", #"{"company":"New","jobTitle":"CTO"}"#)
    var heard = try Self.next(boHears)
    #expect(heard.channel == "wallet:\(boID)")
    #expect(
      heard.json["event"] as? String == "changed" && heard.json["cardId"] as? Int == primaryID)
    let summary = heard.json["card"] as? [String: Any] ?? [:]
    #expect(summary["company"] as? String == "New" && summary["jobTitle"] as? String == "CTO")
    #expect(summary["isActive"] as? Bool == true && summary["firstName"] as? String == "Ana")
    #expect(summary["url"] as? String != nil)
    // The push comes whole among cy's replies, and cy's commands run as usual.
    guard case .array(let page) = try onCy("WALLET.LIST"), page.count == 2 else {
      Issue.record("WALLET.LIST failed")
      return
    }

    _ = try ana.object("CARD.LOCATE", "\(primaryID)", "2.35", "48.85")
    heard = try Self.next(boHears)
    #expect(
      heard.json["event"] as? String == "changed" && heard.json["cardId"] as? Int == primaryID)

    // The second card becomes primary: both cards changed.
    _ = try ana.object("CARD.PRIMARY", "\(secondID)")
    let flipped = try [Self.next(boHears), Self.next(boHears)].map(\.json)
    #expect(Set(flipped.compactMap { $0["cardId"] as? Int }) == [primaryID, secondID])
    #expect(flipped.allSatisfy { ($0["card"] as? [String: Any])?["isActive"] as? Bool == true })

    // Pro ends: the first card, no longer primary, turns inactive; its holders hear it, shown by
    // its id alone.
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "0")
    heard = try Self.next(boHears)
    #expect(heard.json["cardId"] as? Int == primaryID)
    #expect(
      (heard.json["card"] as? [String: Any]).map { Set($0.keys) } == ["id", "isActive"]
        && (heard.json["card"] as? [String: Any])?["isActive"] as? Bool == false)
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "0")
    #expect(
      try Self.heardNothing(boHears), "the same plan again changes nothing, announces nothing")

    #expect(try ana.text("CARD.DEL", "\(secondID)") == "1")
    heard = try Self.next(boHears)
    #expect(heard.json["event"] as? String == "removed" && heard.json["cardId"] as? Int == secondID)
    #expect(Set(heard.json.keys) == ["event", "cardId"])

    // The owner's account goes: every holder hears its card removed.
    #expect(try ana.text("ACCOUNT.DELETE", "secret1") == "OK")
    heard = try Self.next(boHears)
    #expect(
      heard.json["event"] as? String == "removed" && heard.json["cardId"] as? Int == primaryID)
    #expect(try Self.heardNothing(boHears))
    _ = try onCy("PING")
    #expect(
      cyHeard.map { $0["event"] as? String } == [
        "changed", "changed", "changed", "changed", "removed",
      ])
    #expect(cyHeard.allSatisfy { $0["cardId"] as? Int == primaryID })
    #expect((cyHeard[3]["card"] as? [String: Any])?["isActive"] as? Bool == false)
    await server.stop()
  }

  @Test(
    "What a RESP3 connection hears follows who is signed in on it: after AUTH as another account, the first account's channel is silent"
  )
  func subscriptionsFollowTheSignIn() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, boID, _) = try server.signedIn("bo@x.org")
    _ = try server.signedIn("cy@x.org")
    let card = try ana.object("CARD.CREATE", Self.card("Ana"))
    _ = try bo.object("WALLET.ADD", card["code"] as? String ?? "")
    let c = try server.connect()
    _ = try c.command("HELLO", "3", "AUTH", "bo@x.org", "secret1")
    _ = try c.command("SUBSCRIBE", "wallet:\(boID)")
    _ = try ana.object("CARD.UPDATE", "\(card["id"] as? Int ?? 0)", #"{"lastName":"One"}"#)
    #expect(Self.message(try c.reply().value)?.channel == "wallet:\(boID)")
    #expect(try c.command("AUTH", "cy@x.org", "secret1").text == "+OK\r\n")
    _ = try ana.object("CARD.UPDATE", "\(card["id"] as? Int ?? 0)", #"{"lastName":"Two"}"#)
    #expect(try c.command("PING").text == "+PONG\r\n")
    await server.stop()
  }

  @Test("redis-py: a holder's RESP3 pub/sub hears the owner's change")
  func redisPy() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, boID, _) = try server.signedIn("bo@x.org")
    let card = try ana.object("CARD.CREATE", Self.card("Ana"))
    _ = try bo.object("WALLET.ADD", card["code"] as? String ?? "")
    let script = """
      import json, redis
      holder = redis.Redis(port=\(server.port), username="bo@x.org", password="secret1", protocol=3)
      owner = redis.Redis(port=\(server.port), username="ana@x.org", password="secret1", protocol=3)
      p = holder.pubsub()
      p.subscribe("wallet:\(boID)")
      print(p.get_message(timeout=5)["type"])
      owner.execute_command("CARD.UPDATE", \(card["id"] as? Int ?? 0), '{"lastName":"Lee"}')
      m = p.get_message(timeout=5)
      print(m["channel"].decode(), json.loads(m["data"])["card"]["lastName"])
      # Ana's channel: refused.
      p.subscribe("wallet:1")
      try:
          p.get_message(timeout=5)
      except redis.exceptions.ResponseError as e:
          print(type(e).__name__)
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    #expect(output == "subscribe\nwallet:\(boID) Lee\nNoPermissionError\n")
    await server.stop()
  }

  @Test(
    "A view counts once per viewer, card and UTC day (CARD.GET by id and code, CARD.OPEN); the owner's own opens do not; CARD.STATS is the owner's only; views survive a restart and go with accounts"
  )
  func views() async throws {
    try await awayFromUTCMidnight()
    let server = try await TestDaemon()
    let (ana, _, username) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let (cy, _, _) = try server.signedIn("cy@x.org")
    // On the map, where anyone may have found it: others read it by id too.
    let card = try ana.object(
      "CARD.CREATE", Self.card("Ana", #""showOnMap":true,"location":{"lon":2.35,"lat":48.85}"#))
    let id = "\(card["id"] as? Int ?? 0)"
    let code = card["code"] as? String ?? ""
    _ = try bo.object("CARD.GET", id)
    _ = try bo.object("CARD.GET", code)
    #expect(try bo.object("CARD.OPEN", username)["state"] as? String == "card")
    _ = try cy.object("CARD.OPEN", username)
    _ = try cy.object("CARD.GET", id)
    _ = try ana.object("CARD.GET", id)
    _ = try ana.object("CARD.OPEN", username)
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
    var stats = try ana.object("CARD.STATS", id)
    #expect(stats["total"] as? Int == 2 && stats["days"] as? [String: Int] == [today: 2])
    #expect(stats["to"] as? String == today && stats["cardId"] as? Int == Int(id))
    #expect(stats["walletSaves"] as? Int == 0)
    _ = try bo.object("WALLET.ADD", code)
    #expect(try ana.object("CARD.STATS", id)["walletSaves"] as? Int == 1)

    #expect(try bo.text("CARD.STATS", id) == "NOPERM the card is not yours")
    #expect(try ana.text("CARD.STATS", "999") == "NOTFOUND no such card")
    stats = try ana.object("CARD.STATS", id, "FROM", "2020-01-01", "TO", "2020-01-31")
    #expect(stats["total"] as? Int == 0 && (stats["days"] as? [String: Int])?.isEmpty == true)
    #expect(try ana.object("CARD.STATS", id, "FROM", today)["total"] as? Int == 2)
    for bad in ["2026-02-30", "2026-1-01", "yesterday", "2026-01-01x"] {
      #expect(
        try ana.text("CARD.STATS", id, "FROM", bad) == "ERR invalid date: yyyy-mm-dd", "\(bad)")
    }
    #expect(
      try ana.text("CARD.STATS", id, "FROM", today, "TO", "2020-01-01") == "ERR FROM is after TO")
    #expect(try ana.text("CARD.STATS", id, "FROM") == "ERR syntax error")
    #expect(try server.connect().text("CARD.STATS", id).hasPrefix("NOAUTH"))

    try await server.restart()
    let anaAgain = try server.connect()
    _ = try anaAgain.text("AUTH", "ana@x.org", "secret1")
    let boAgain = try server.connect()
    _ = try boAgain.text("AUTH", "bo@x.org", "secret1")
    _ = try boAgain.object("CARD.GET", id)
    #expect(try anaAgain.object("CARD.STATS", id)["total"] as? Int == 2)
    #expect(try await server.sql("SELECT COUNT(*) FROM card_views") == "2")

    // A viewer's account goes with its views; the owner's with its cards' views.
    #expect(try boAgain.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try anaAgain.object("CARD.STATS", id)["total"] as? Int == 1)
    #expect(try anaAgain.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try await server.sql("SELECT COUNT(*) FROM card_views") == "0")
    await server.stop()
  }

  @Test(
    "NOTIFY.SET chooses what the owner hears on account:<id>: views and wallet adds, off by default, kept across a restart, gone with the account"
  )
  func ownerHears() async throws {
    let server = try await TestDaemon()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let (cy, cyID, _) = try server.signedIn("cy@x.org")
    let (dee, _, _) = try server.signedIn("dee@x.org")
    // On the map, where anyone may have found it: others read it by id too.
    let card = try ana.object(
      "CARD.CREATE", Self.card("Ana", #""showOnMap":true,"location":{"lon":2.35,"lat":48.85}"#))
    let (id, code) = ("\(card["id"] as? Int ?? 0)", card["code"] as? String ?? "")
    #expect(try ana.text("NOTIFY.GET") == #"{"views":false,"walletAdds":false}"#)
    let hears = try Self.listener(server, "ana@x.org", "account:\(anaID)")

    _ = try bo.object("CARD.GET", id)
    _ = try bo.object("WALLET.ADD", code)
    #expect(try Self.heardNothing(hears))

    #expect(try ana.text("NOTIFY.SET", "views", "1") == #"{"views":true,"walletAdds":false}"#)
    _ = try cy.object("CARD.GET", code)
    var heard = try Self.next(hears)
    #expect(heard.channel == "account:\(anaID)")
    #expect(
      heard.json["event"] as? String == "view" && heard.json["cardId"] as? Int == Int(id)
        && heard.json["viewerId"] as? Int == cyID)
    // Counted already today: not heard again.
    _ = try cy.object("CARD.GET", id)
    _ = try bo.object("CARD.GET", id)
    _ = try ana.object("CARD.GET", id)
    #expect(try Self.heardNothing(hears))

    #expect(try ana.text("NOTIFY.SET", "WALLETADDS", "1") == #"{"views":true,"walletAdds":true}"#)
    _ = try cy.object("WALLET.ADD", code)
    heard = try Self.next(hears)
    #expect(
      heard.json["event"] as? String == "walletAdd" && heard.json["cardId"] as? Int == Int(id)
        && heard.json["accountId"] as? Int == cyID)
    _ = try cy.object("WALLET.ADD", code)
    #expect(try Self.heardNothing(hears))

    #expect(try ana.text("NOTIFY.SET", "views", "0") == #"{"views":false,"walletAdds":true}"#)
    _ = try dee.object("CARD.GET", id)
    #expect(try Self.heardNothing(hears))
    #expect(try ana.object("CARD.STATS", id)["total"] as? Int == 3)

    #expect(try ana.text("NOTIFY.SET", "mentions", "1") == "ERR unknown event: views or walletAdds")
    #expect(try ana.text("NOTIFY.SET", "views", "yes") == "ERR the setting must be 0 or 1")
    #expect(try server.connect().text("NOTIFY.GET").hasPrefix("NOAUTH"))
    #expect(try bo.text("NOTIFY.GET") == #"{"views":false,"walletAdds":false}"#)

    try await server.restart()
    let anaAgain = try server.connect()
    _ = try anaAgain.text("AUTH", "ana@x.org", "secret1")
    #expect(try anaAgain.text("NOTIFY.GET") == #"{"views":false,"walletAdds":true}"#)
    #expect(try anaAgain.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try await server.sql("SELECT COUNT(*) FROM notify_settings") == "0")
    await server.stop()
  }
}
