import Foundation
import FoundationNetworking
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RedisTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `cardatlas serve --store postgresql://…`, as operators run it: real processes on one
/// database, real RESP clients.
@Suite("Nodes over PostgreSQL, over RESP", .serialized)
struct NodesOverRESPTests {
  /// Runs `body` with a throwaway database's URL and a directory for the nodes' `--data`.
  static func withDatabase(_ body: (String, String) async throws -> Void) async throws {
    let database = try await TestDatabase.make()
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-nodes-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let location = database.location
    let url = "\(location)?sslmode=\(location.tls.rawValue)"
    do {
      try await body(url, directory)
    } catch {
      await database.drop()
      throw error
    }
    await database.drop()
  }

  static func node(_ url: String, _ directory: String) throws -> CardAtlasProcess {
    try CardAtlasProcess(directory: directory, arguments: ["--store", url])
  }

  /// What `keys` hold on a node, as its replies say: a sorted set's members and scores, a
  /// string's value, or nothing.
  static func dump(_ port: UInt16, _ keys: [String]) throws -> [String] {
    let connection = try RESPConnection(port: port, timeoutSeconds: 60)
    return try keys.map { key in
      switch try connection.command("TYPE", key).text {
      case "+zset\r\n": try connection.command("ZRANGE", key, "0", "-1", "WITHSCORES").text
      case "+string\r\n": try connection.command("GET", key).text
      case let other: other
      }
    }
  }

  /// Waits (up to 20 s) until every node's dump of `keys` is the same; returns it.
  static func converged(_ ports: [UInt16], _ keys: [String]) async throws -> [String]? {
    for _ in 0..<400 {
      let dumps = try ports.map { try dump($0, keys) }
      if dumps.allSatisfy({ $0 == dumps[0] }) { return dumps[0] }
      try await Task.sleep(for: .milliseconds(50))
    }
    return nil
  }

  @Test(
    "a GEOADD on one node is found by GEOSEARCH on another; a ZREM, DEL and SET there come back; a node killed with -9 starts again with the same data"
  )
  func writesTravel() async throws {
    try await Self.withDatabase { url, directory in
      var a = try Self.node(url, directory + "/a")
      let b = try Self.node(url, directory + "/b")
      let toA = try RESPConnection(port: a.port)
      let toB = try RESPConnection(port: b.port)
      #expect(
        try toA.command(
          "GEOADD", "fleet", "2.3522", "48.8566", "paris", "13.405", "52.52", "berlin"
        )
        .text == ":2\r\n")
      let search =
        ["GEOSEARCH", "fleet", "FROMLONLAT", "2.3", "48.8", "BYRADIUS", "2000", "km"]
        + ["ASC", "WITHDIST", "WITHCOORD"]
      let onA = try toA.command(search).text
      var onB = ""
      for _ in 0..<200 where onB != onA {
        onB = try toB.command(search).text
        try await Task.sleep(for: .milliseconds(50))
      }
      #expect(onB == onA, "node B's GEOSEARCH: \(onB)")
      #expect(try toB.command("ZREM", "fleet", "berlin").text == ":1\r\n")
      #expect(try toB.command("SET", "greeting", "hello").text == "+OK\r\n")
      #expect(try toB.command("GEOADD", "gone", "0", "0", "x").text == ":1\r\n")
      #expect(try toB.command("DEL", "gone").text == ":1\r\n")
      let keys = ["fleet", "greeting", "gone"]
      let agreed = try await Self.converged([a.port, b.port], keys)
      #expect(agreed?[0].contains("paris") == true && agreed?[0].contains("berlin") == false)
      #expect(agreed?[1] == "$5\r\nhello\r\n" && agreed?[2] == "+none\r\n")
      let info = try toA.command("INFO", "persistence").text
      #expect(info.contains("cardatlas_store:postgresql"))
      let replication = try toB.command("INFO", "replication").text
      #expect(replication.contains("role:master\r\n") && replication.contains("feed_connected:1"))
      let lag = replication.split(separator: "\r\n").first {
        $0.hasPrefix("feed_caught_up_ms_ago:")
      }
      .flatMap { Int($0.split(separator: ":")[1]) }
      #expect(lag.map { $0 < 2_000 } == true, "\(replication)")
      let backup = try toA.command("BACKUP", directory + "/copy.sqlite").text
      #expect(backup.hasPrefix("-ERR backup failed: BACKUP copies the embedded store"))
      try await a.crash(after: .zero)
      #expect(try toB.command("GEOADD", "fleet", "-0.1276", "51.5072", "london").text == ":1\r\n")
      a = try Self.node(url, directory + "/a")
      #expect(try Self.dump(a.port, keys) == Self.dump(b.port, keys))
      #expect(try Self.dump(a.port, ["fleet"])[0].contains("london"))
    }
  }

  @Test(
    "two nodes taking random GEOADDs, ZREMs, DELs, SETs and FLUSHDBs at once end equal, and a third started after loads the same"
  )
  func randomWritesConverge() async throws {
    try await Self.withDatabase { url, directory in
      let nodes = try (0..<2).map { try Self.node(url, directory + "/\($0)") }
      let keys = ["k0", "k1", "k2"]
      let acknowledged = Mutex(0)
      let threads = nodes.map(\.port).enumerated().map { n, port in
        Thread {
          guard let connection = try? RESPConnection(port: port) else { return }
          var seed = UInt64(n + 1) &* 0x9E37_79B9_7F4A_7C15
          func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
          }
          for _ in 0..<300 {
            let key = keys[next(3)]
            let member = "m\(next(8))"
            let command: [String] =
              switch next(20) {
              case 0..<12:
                ["GEOADD", key, String(next(360) - 180), String(next(170) - 85), member]
              case 12..<16: ["ZREM", key, member]
              case 16: ["DEL", key]
              case 17, 18: ["SET", "s\(next(2))", "v\(next(100))"]
              default: next(4) == 0 ? ["FLUSHDB"] : ["PING"]
              }
            if (try? connection.command(command)) != nil { acknowledged.withLock { $0 += 1 } }
          }
        }
      }
      for thread in threads { thread.start() }
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(acknowledged.withLock { $0 } == 600)
      let all = keys + ["s0", "s1"]
      let agreed = try await Self.converged(nodes.map(\.port), all)
      #expect(agreed != nil, "the two nodes did not come to the same data")
      let third = try Self.node(url, directory + "/third")
      #expect(try Self.dump(third.port, all) == agreed)
    }
  }

  @Test(
    "a node stopped (SIGSTOP) past --node-timeout while the feed is pruned exits with status 75 when it wakes, rather than serve stale data; a restart loads everything"
  )
  func silentNodeExits() async throws {
    try await Self.withDatabase { url, directory in
      let a = try Self.node(url, directory + "/a")
      var b = try CardAtlasProcess(
        directory: directory + "/b", arguments: ["--store", url, "--node-timeout", "1"])
      let toA = try RESPConnection(port: a.port)
      #expect(try toA.command("GEOADD", "fleet", "1", "1", "first").text == ":1\r\n")
      #expect(try await Self.converged([a.port, b.port], ["fleet"]) != nil)
      b.signal(SIGSTOP)
      for i in 0..<20 { _ = try toA.command("GEOADD", "fleet", "2", "2", "m\(i)") }
      try await Task.sleep(for: .seconds(2))
      var retention = FeedRetention()
      retention.nodeTimeout = .seconds(1)
      retention.minimumAge = .zero
      let pruner = try await PostgresStore(
        location: PostgresLocation(url: url), migrations: [], logger: TestDatabase.logger)
      await pruner.prune(retention)
      await pruner.close()
      b.signal(SIGCONT)
      for _ in 0..<200 where b.isRunning { try await Task.sleep(for: .milliseconds(50)) }
      #expect(!b.isRunning)
      if !b.isRunning { #expect(b.exitStatus == 75) }
      b = try Self.node(url, directory + "/b")
      #expect(try Self.dump(b.port, ["fleet"]) == Self.dump(a.port, ["fleet"]))
    }
  }

  @Test(
    "cardatlas migrate moves an embedded store killed with -9 (keys, accounts, cards, wallets, notice settings, views, exchanges, pins with photos and votes, documents, uploads, venues with visits) into PostgreSQL, checked by counts and checksums; a node there serves the same keys, the accounts sign in with their ids, usernames and sessions, the card is on the map under its share code, in the wallet, with its views; a second run into the full database exits 1"
  )
  func migrateMovesTheKeyspace() async throws {
    try await Self.withDatabase { url, directory in
      let source = directory + "/embedded"
      let httpPort = try RedisProcess.freeLoopbackPort()
      let embedded = try CardAtlasProcess(
        directory: source,
        arguments: ["--http-port", "\(httpPort)", "--public-url", "http://127.0.0.1:\(httpPort)"])
      let c = try RESPConnection(port: embedded.port)
      for k in 0..<3 {
        var args = ["GEOADD", "key\(k)"]
        for i in 0..<700 {
          args += [String(Double(i) / 7 - 50), String(Double(k * 10 + i % 60)), "m\(i)"]
        }
        #expect(try c.command(args).text == ":700\r\n")
      }
      _ = try c.command("ZREM", "key1", "m5")
      _ = try c.command("SET", "greeting", "hello")
      _ = try c.command("SELECT", "3")
      _ = try c.command("GEOADD", "elsewhere", "10", "10", "x")
      let keys = ["key0", "key1", "key2", "greeting"]
      let before = try Self.dump(embedded.port, keys)
      // Accounts, one with a session on a device.
      let ana = try RESPConnection(port: embedded.port).object(
        "ACCOUNT.CREATE", "ana@x.org", "secret1")
      _ = try RESPConnection(port: embedded.port).object("ACCOUNT.CREATE", "bo@x.org", "secret2")
      let token = try RESPConnection(port: embedded.port).text(
        "SESSION.OPEN", "ana@x.org", "secret1", "phone")
      // A card on the map, held in bo's wallet and opened by bo; ana hears of views.
      let anaCards = try RESPConnection(port: embedded.port)
      #expect(try anaCards.text("AUTH", "ana@x.org", "secret1") == "OK")
      let card = try anaCards.object(
        "CARD.CREATE", #"{"firstName":"Ana","company":"Acme","showOnMap":true}"#)
      let cardId = try #require(card["id"] as? Int)
      let code = try #require(card["code"] as? String)
      _ = try anaCards.object("CARD.LOCATE", "\(cardId)", "2.3522", "48.8566")
      _ = try anaCards.object("NOTIFY.SET", "views", "1")
      let bo = try RESPConnection(port: embedded.port)
      #expect(try bo.text("AUTH", "bo@x.org", "secret2") == "OK")
      _ = try bo.object("WALLET.ADD", code)
      _ = try bo.object("CARD.GET", "\(cardId)")
      // Bo and ana exchanged cards where they met; eve's request to ana waits.
      _ = try bo.object("CARD.CREATE", #"{"firstName":"Bo"}"#)
      let eve = try RESPConnection(port: embedded.port)
      let (eveId, _) = try eve.signUp("eve@x.org")
      _ = try eve.object("CARD.CREATE", #"{"firstName":"Eve"}"#)
      for person in [anaCards, bo, eve] { _ = try person.object("PRESENCE.SET", "2.35", "48.85") }
      let boId = try #require(try bo.object("WHOAMI")["id"] as? Int)
      _ = try bo.text("EXCHANGE.REQUEST", "\(ana["id"] as? Int ?? 0)")
      #expect(try anaCards.text("EXCHANGE.REQUEST", "\(boId)").contains("exchanged"))
      #expect(try eve.text("EXCHANGE.REQUEST", "\(ana["id"] as? Int ?? 0)").contains("pending"))
      // A pin with its photo, voted up by bo.
      let pin = try anaCards.object("PIN.ADD", "2.35", "48.85", "100", "m", #"{"caption":"Seine"}"#)
      let pinId = try #require(pin["id"] as? Int)
      let jpeg = TestPhoto.jpeg(Array("the river".utf8))
      #expect(try PinsAcrossNodesTests.photo(anaCards, pinId, jpeg).contains("image/jpeg"))
      _ = try bo.object("PIN.VOTE", "\(pinId)", "UP")
      // A document, an upload, and a venue eve visits with her child.
      let pdf = try MediaFixtures.bytes("result.pdf")
      let document = try anaCards.command(bytes: [
        Array("DOC.PUT".utf8), Array("VACCINATION".utf8), Array("2026-01-05".utf8), pdf,
      ]).text
      #expect(document.contains("VACCINATION"), "\(document)")
      let png = try MediaFixtures.bytes("python.png")
      let upload = try anaCards.command(bytes: [Array("ASSET.PUT".utf8), Array("LOGO".utf8), png])
        .text
      #expect(upload.contains("/a/"), "\(upload)")
      let venue = try anaCards.object("VENUE.CREATE", #"{"name":"Café","lon":2.35,"lat":48.85}"#)
      let venueId = try #require(venue["id"] as? Int)
      let venueCode = try anaCards.text("VENUE.CODE", "\(venueId)")
      let child = try #require(try eve.object("DEPENDANT.ADD", "Kid")["id"] as? Int)
      _ = try eve.object("CHECKIN", venueCode, "WITH", "\(child)")
      _ = try eve.text("FAVORITE.ADD", "\(venueId)")
      // A guest checked in from the venue's page, then the code rotated (the old one's page
      // says so).
      let guest = try await Self.checkInGuest(httpPort, venueCode, name: "Gus", email: "gus@x.org")
      #expect(guest.contains("You are checked in"), "\(guest)")
      let newCode = try anaCards.text("VENUE.ROTATE", "\(venueId)")
      try await embedded.crash(after: .zero)
      let (status, said) = try Self.run(["migrate", "--from", source, "--to", url])
      #expect(status == 0, "\(said)")
      #expect(said.contains("moved 5 keys (2100 GEO members, 1 string)"), "\(said)")
      #expect(said.contains("moved 3 accounts (1 session, 0 resets, 0 ID-token links)"), "\(said)")
      #expect(
        said.contains("moved 3 cards (2 wallet entries, 1 notice settings, 1 views)"), "\(said)")
      #expect(said.contains("moved 1 exchanges (1 pending requests)"), "\(said)")
      #expect(said.contains("moved 1 pins (1 votes, 1 photos)"), "\(said)")
      #expect(said.contains("moved 1 documents and 1 uploads (2 files)"), "\(said)")
      #expect(
        said.contains(
          "moved 1 venues (2 visits, 1 dependants, 1 favorites, 0 exposure notices, 1 guests)"),
        "\(said)")
      #expect(!said.contains("DIFFERENT") && !said.contains("not moved"), "\(said)")
      let node = try Self.node(url, directory + "/node")
      #expect(try Self.dump(node.port, keys) == before)
      // The accounts sign in as before, with the same ids and usernames; the session resumes;
      // a new account's id comes after theirs.
      let signedIn = try RESPConnection(port: node.port)
      #expect(try signedIn.text("AUTH", "ana@x.org", "secret1") == "OK")
      let whoami = try signedIn.object("WHOAMI")
      #expect(whoami["id"] as? Int == ana["id"] as? Int)
      #expect(whoami["username"] as? String == ana["username"] as? String)
      let resumed = try RESPConnection(port: node.port).object("SESSION.RESUME", token)
      #expect(resumed["email"] as? String == "ana@x.org")
      let new = try RESPConnection(port: node.port).object("ACCOUNT.CREATE", "cy@x.org", "secret3")
      #expect((new["id"] as? Int ?? 0) > (ana["id"] as? Int ?? .max))
      // The card: the same share code, on the map, in bo's wallet, its view counted.
      #expect(try signedIn.object("CARD.GET", code)["id"] as? Int == cardId)
      #expect(try CardsAcrossNodesTests.nearParis(signedIn) == [cardId])
      let stats = try signedIn.object("CARD.STATS", "\(cardId)")
      #expect(stats["total"] as? Int == 1 && stats["walletSaves"] as? Int == 1, "\(stats)")
      #expect(try signedIn.object("NOTIFY.GET")["views"] as? Bool == true)
      let boOnNode = try RESPConnection(port: node.port)
      #expect(try boOnNode.text("AUTH", "bo@x.org", "secret2") == "OK")
      #expect(
        try CardsAcrossNodesTests.texts(boOnNode, "WALLET.LIST").contains { $0.contains("Acme") })
      // The pin, its vote and its photo, on the node.
      #expect(try signedIn.object("PIN.GET", "\(pinId)")["ups"] as? Int == 1)
      #expect(try PinsAcrossNodesTests.opened(signedIn, pinId, "2.35", "48.85") == jpeg)
      // The document with its bytes, the venue's code and visits, on the node.
      guard case .array(let got) = try signedIn.command("DOC.LIST").value, got.count == 1 else {
        Issue.record("DOC.LIST on the node")
        return
      }
      #expect(try signedIn.text("VENUE.CODE", "\(venueId)") == newCode)
      let visitors = try PeopleAcrossNodesTests.list(signedIn, "VENUE.VISITORS", "\(venueId)")
      #expect(visitors.count == 3, "\(visitors)")
      #expect(
        visitors.contains { ($0["guest"] as? [String: Any])?["email"] as? String == "gus@x.org" })
      let previous = try await TestDatabase(location: try PostgresLocation(url: url)).connect {
        connection in
        var codes: [String?] = []
        for try await code in try await connection.query(
          "SELECT previous_code FROM venues", logger: TestDatabase.logger
        ).decode(String?.self) { codes.append(code) }
        return codes
      }
      #expect(previous == [venueCode], "the rotated code's page still names the venue")
      // The exchange and the request waiting, on the node.
      #expect(try PeopleAcrossNodesTests.exchanged(signedIn) == [boId])
      let waiting = try PeopleAcrossNodesTests.list(signedIn, "EXCHANGE.PENDING")
      #expect(waiting.compactMap { $0["accountId"] as? Int } == [eveId])
      let next = try RESPConnection(port: node.port)
      _ = try next.signUp("dee@x.org")
      let later = try next.object("CARD.CREATE", #"{"firstName":"Dee"}"#)
      #expect((later["id"] as? Int ?? 0) > cardId)
      let db3 = try RESPConnection(port: node.port)
      _ = try db3.command("SELECT", "3")
      #expect(try db3.command("GEOPOS", "elsewhere", "x").text.contains("10.0000"))
      let (again, refused) = try Self.run(["migrate", "--from", source, "--to", url])
      #expect(again == 1 && refused.contains("already hold data"), "\(refused)")
    }
  }

  /// Runs `cardatlas` with `arguments`; its exit status and what it printed (both streams).
  static func run(_ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = try CardAtlasExecutable.url()
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, said)
  }

  @Test(
    "a node killed with -9 under four writers: every GEOADD it acknowledged is on the other node and on the node restarted"
  )
  func killUnderWriters() async throws {
    try await Self.withDatabase { url, directory in
      let a = try Self.node(url, directory + "/a")
      let b = try Self.node(url, directory + "/b")
      let acknowledged = Mutex<[String]>([])
      let port = a.port
      let threads = (0..<4).map { w in
        Thread {
          guard let connection = try? RESPConnection(port: port) else { return }
          for i in 0... {
            let member = "w\(w)-\(i)"
            let args = ["GEOADD", "crash", String(Double(i % 300) / 2), String(w * 10), member]
            guard (try? connection.command(args))?.text == ":1\r\n" else { return }
            acknowledged.withLock { $0.append(member) }
          }
        }
      }
      for thread in threads { thread.start() }
      try await a.crash(after: .milliseconds(700))
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(for: .milliseconds(20))
      }
      let members = acknowledged.withLock { $0 }
      #expect(members.count > 0, "the writers made progress before the kill")
      print("a node killed under writers: \(members.count) GEOADDs acknowledged")
      let restarted = try Self.node(url, directory + "/a")
      for port in [b.port, restarted.port] {
        let present = try await Self.members(of: "crash", on: port, atLeast: members.count)
        let missing = members.filter { !present.contains($0) }
        #expect(missing.isEmpty, "acknowledged but missing: \(missing.prefix(5))")
      }
    }
  }

  /// The members of `key` on a node, once it holds at least `count` (or after 20 s).
  static func members(of key: String, on port: UInt16, atLeast count: Int) async throws
    -> Set<String>
  {
    let connection = try RESPConnection(port: port, timeoutSeconds: 60)
    var found: Set<String> = []
    for _ in 0..<400 {
      guard case .array(let all) = try connection.command("ZRANGE", key, "0", "-1").value else {
        break
      }
      found = Set(
        all.compactMap { value -> String? in
          if case .bulkString(let bytes) = value { return String(buffer: bytes) }
          return nil
        })
      if found.count >= count { break }
      try await Task.sleep(for: .milliseconds(50))
    }
    return found
  }

  @Test(
    "PUBLISH on one node reaches SUBSCRIBE and PSUBSCRIBE on another, in order; the reply counts the node's own subscribers; a message too large to relay is refused"
  )
  func pubsubAcrossNodes() async throws {
    try await Self.withDatabase { url, directory in
      let a = try Self.node(url, directory + "/a")
      let b = try Self.node(url, directory + "/b")
      let listener = try RESPConnection(port: b.port)
      #expect(try listener.command("SUBSCRIBE", "news").text.contains("news"))
      #expect(try listener.command("PSUBSCRIBE", "n*").text.contains("n*"))
      let local = try RESPConnection(port: a.port)
      #expect(try local.command("SUBSCRIBE", "news").text.contains("news"))
      let publisher = try RESPConnection(port: a.port)
      // The relay's LISTEN on B may come a moment after B answers: publish until heard.
      var first = ""
      for _ in 0..<100 {
        #expect(try publisher.command("PUBLISH", "news", "ping").text == ":1\r\n")
        if let heard = try? listener.reply().text {
          first = heard
          break
        }
      }
      #expect(first.contains("ping"))
      var heard: [String] = []
      for i in 0..<20 { _ = try publisher.command("PUBLISH", "news", "m\(i)") }
      while heard.count < 40, let reply = try? listener.reply() {
        let text = reply.text
        if let message = text.split(separator: "\r\n").last, message.hasPrefix("m") {
          heard.append(String(message) + (text.contains("pmessage") ? "/p" : ""))
        }
      }
      let direct = heard.filter { !$0.hasSuffix("/p") }
      let patterned = heard.filter { $0.hasSuffix("/p") }.map { String($0.dropLast(2)) }
      let expected = (0..<20).map { "m\($0)" }
      #expect(direct == expected && patterned == expected, "\(heard)")
      let large = String(repeating: "x", count: 6_000)
      #expect(
        try publisher.command("PUBLISH", "news", large).text.hasPrefix(
          "-ERR a message published to the other nodes may be at most 5800 bytes"))
    }
  }

  /// A guest's check-in through the venue's page, as a browser makes it (the form's cookie and
  /// CSRF token read from the page); the answer page's text.
  static func checkInGuest(_ port: UInt16, _ code: String, name: String, email: String)
    async throws -> String
  {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let url = URL(string: "http://127.0.0.1:\(port)/v/\(code)")!
    let (page, response) = try await session.data(from: url)
    let html = String(decoding: page, as: UTF8.self)
    let cookie = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") ?? ""
    let marker = #"name="csrf" value=""#
    guard let at = html.range(of: marker), let end = html[at.upperBound...].firstIndex(of: "\"")
    else { return "no form: \(html)" }
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue(String(cookie.prefix { $0 != ";" }), forHTTPHeaderField: "Cookie")
    request.setValue("http://127.0.0.1:\(port)", forHTTPHeaderField: "Origin")
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    let fields = ["csrf": String(html[at.upperBound..<end]), "name": name, "email": email]
    request.httpBody = Data(
      fields.map {
        "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
      }
      .joined(separator: "&").utf8)
    let (body, _) = try await session.data(for: request)
    return String(decoding: body, as: UTF8.self)
  }

  /// GET on 127.0.0.1: the status and body, or nil when nothing answers.
  static func get(_ port: UInt16, _ path: String) async -> (Int, String)? {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    guard
      let (body, response) = try? await session.data(
        from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    else { return nil }
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
  }

  @Test(
    "with --http-port a node answers /healthz while it loads and /readyz only once it serves, RESP answering LOADING meanwhile; /readyz is 503 and a write TRYAGAIN while the node cannot reach the database, and /readyz 200 again when it can"
  )
  func readiness() async throws {
    try await Self.withDatabase { url, directory in
      let first = try Self.node(url, directory + "/a")
      let database = TestDatabase(location: try PostgresLocation(url: url))
      // 200,000 members written straight into the table: a load long enough to be seen.
      try await database.connect { connection in
        try await connection.query(
          """
          INSERT INTO geo_members (db, key, member, score, longitude, latitude, geom)
          SELECT 0, 'big'::bytea, convert_to('m' || i, 'UTF8'), 0, lon, lat,
            ST_SetSRID(ST_MakePoint(lon, lat), 4326)
          FROM generate_series(1, 200000) AS i,
            LATERAL (SELECT (i % 359) - 179.5 AS lon, ((i / 359) % 170) - 84.5 AS lat) AS p
          """, logger: TestDatabase.logger)
      }
      _ = first
      let (resp, http) = (try RedisProcess.freeLoopbackPort(), try RedisProcess.freeLoopbackPort())
      let process = Process()
      process.executableURL = try CardAtlasExecutable.url()
      process.arguments = [
        "serve", "--store", url, "--port", "\(resp)", "--http-port", "\(http)", "--data",
        directory + "/b", "--ready-lag", "1", "--log-level", "error",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
      var seen: [String] = []
      var loadingWhileAlive = false
      var loadingOverRESP = false
      var oversizeRefused = false
      for _ in 0..<1200 {
        if let ready = await Self.get(http, "/readyz") {
          if seen.last != ready.1 { seen.append(ready.1) }
          if ready.0 == 503, ready.1 == "not ready: loading\n",
            await Self.get(http, "/healthz")?.0 == 200
          {
            loadingWhileAlive = true
            // RESP meanwhile: Redis's LOADING error, which clients retry on.
            if let reply = try? RESPConnection(port: resp).command("GET", "big").text {
              if reply.hasPrefix("-LOADING") { loadingOverRESP = true }
            }
            // A command past the loading port's small bound: refused, not buffered.
            if let reply = try? RESPConnection(port: resp).command(
              "SET", "x", String(repeating: "a", count: 100_000)
            ).text, reply.hasPrefix("-ERR Protocol error") {
              oversizeRefused = true
            }
          }
          if ready.0 == 200 { break }
        }
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(loadingWhileAlive, "seen: \(seen)")
      #expect(loadingOverRESP, "a command while loading answers LOADING")
      #expect(oversizeRefused, "a 100 KB argument while loading is a protocol error")
      #expect(seen.last == "ready\n", "seen: \(seen)")
      // Ready means serving: RESP answers with the whole keyspace.
      #expect(try RESPConnection(port: resp).command("ZCARD", "big").text == ":200000\r\n")
      // The database refuses the node: its follower's connection is down, and /readyz says so.
      try await RefusedWritesTests.cutOff(url, node: resp) {
        var down: (Int, String)?
        for _ in 0..<200 where down?.0 != 503 {
          try await Task.sleep(for: .milliseconds(50))
          down = await Self.get(http, "/readyz")
        }
        #expect(down?.0 == 503, "\(String(describing: down))")
        #expect(await Self.get(http, "/healthz")?.0 == 200)
        // A write meanwhile: nothing written, and said to be worth retrying.
        let refused = try RESPConnection(port: resp, timeoutSeconds: 60)
          .command("GEOADD", "big", "1", "1", "during").text
        #expect(refused.hasPrefix("-TRYAGAIN write not persisted, nothing written"), "\(refused)")
      }
      var back: (Int, String)?
      for _ in 0..<400 where back?.0 != 200 {
        try await Task.sleep(for: .milliseconds(50))
        back = await Self.get(http, "/readyz")
      }
      #expect(back?.0 == 200, "\(String(describing: back))")
      print("/readyz while a node started and lost the database: \(seen)")
    }
  }
}
