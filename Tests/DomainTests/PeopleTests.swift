import Cards
import DaemonTestSupport
import Foundation
import Geocoding
import People
import RESP
import RedisTestSupport
import Testing

/// numo's people nearby and exchanges through the protocol over real sockets.
@Suite("People")
struct PeopleTests {
  /// Names the rounded midpoint it is asked about, so a test sees what was asked.
  struct Gazetteer: Geocoder {
    var name: String { "test" }
    func search(_ query: GeocodeQuery) async throws -> [Place] { [] }
    func reverse(lon: Double, lat: Double) async throws -> Place? {
      Place(
        lon: lon, lat: lat, label: "Near \(lon),\(lat)", confidence: 1, provider: name, name: "Near"
      )
    }
  }

  static func server(_ configure: (inout People.Configuration) -> Void = { _ in }) async throws
    -> TestDaemon
  {
    var configuration = People.Configuration()
    configuration.searchesPerMinute = nil
    // These tests search from many cells in a row; TrilaterationTests checks those limits.
    configuration.searchCellsPerAccount = 0
    configuration.searchCellsPerAddress = 0
    configure(&configuration)
    return try await TestDaemon(
      cards: { $0.geocoder = Gazetteer() }, domain: { $0.people = configuration })
  }

  /// A signed-in account with a primary card.
  static func person(_ server: TestDaemon, _ name: String) throws -> (RESPConnection, id: Int) {
    let (c, id, _) = try server.signedIn("\(name.lowercased())@x.org")
    _ = try c.object("CARD.CREATE", WalletTests.card(name, #""company":"\#(name) Ltd""#))
    return (c, id)
  }

  /// A JSON array reply, its items decoded.
  static func list(_ c: RESPConnection, _ arguments: String...) throws -> [[String: Any]] {
    guard case .array(let items) = try c.command(arguments).value else {
      throw RESPConnection.Failed(description: "not an array: \(try c.command(arguments).text)")
    }
    return items.compactMap { item in
      guard case .bulkString(let b) = item else { return nil }
      return try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8)) as? [String: Any]
    }
  }

  /// A reply as text, as `RESPConnection.text` answers it.
  static func text(_ c: RESPConnection, _ arguments: [String]) throws -> String {
    switch try c.command(arguments).value {
    case .bulkString(let b): return String(buffer: b)
    case .error(let e): return e
    case let other: return "\(other)"
    }
  }

  static func ids(_ found: [[String: Any]]) -> [Int] {
    found.compactMap { $0["accountId"] as? Int }
  }

  @Test(
    "PRESENCE.SET answers findable and expiry (10 minutes by default); bad input is refused and stores nothing; PRESENCE.CLEAR"
  )
  func presence() async throws {
    let server = try await Self.server()
    let (ana, _) = try Self.person(server, "Ana")
    let (bo, boID) = try Self.person(server, "Bo")
    let before = Date()
    let set = try ana.object("PRESENCE.SET", "9.52", "47.14")
    #expect(set["findable"] as? Bool == true)
    let expires = ISO8601DateFormatter().date(from: set["expiresAt"] as? String ?? "")
    #expect(expires.map { abs($0.timeIntervalSince(before) - 600) < 3 } == true)
    #expect(
      try ana.object("PRESENCE.SET", "9.52", "47.14", "TTL", "30", "FINDABLE", "0")["findable"]
        as? Bool == false)
    for (bad, error) in [
      (["200", "47"], "INVALID location"), (["9", "89"], "INVALID location"),
      (["x", "47"], "ERR value is not a valid float"),
      (["nan", "47"], "ERR value is not a valid float"),
      (["9", "47", "TTL", "0"], "INVALID ttl"), (["9", "47", "TTL", "86401"], "INVALID ttl"),
      (["9", "47", "TTL", "ten"], "ERR value is not an integer"),
      (["9", "47", "FINDABLE", "2"], "ERR FINDABLE must be 0 or 1"),
      (["9", "47", "FINDABLE"], "ERR syntax error"), (["9", "47", "NOW", "1"], "ERR syntax error"),
    ] {
      #expect(try Self.text(bo, ["PRESENCE.SET"] + bad).hasPrefix(error), "\(bad)")
    }
    // Bo has no presence: nothing of the refused ones was kept.
    #expect(try bo.text("PEOPLE.NEARBY", "5", "km") == "ERR no live presence: PRESENCE.SET first")
    _ = try bo.object("PRESENCE.SET", "9.521", "47.14")
    #expect(try Self.ids(Self.list(bo, "PEOPLE.NEARBY", "5", "km")).isEmpty)  // Ana: unfindable
    _ = try ana.object("PRESENCE.SET", "9.52", "47.14")
    #expect(
      try Self.ids(Self.list(bo, "PEOPLE.NEARBY", "5", "km")) == [
        Int(try ana.object("WHOAMI")["id"] as? Int ?? 0)
      ])
    #expect(try ana.text("PRESENCE.CLEAR") == "1")
    #expect(try ana.text("PRESENCE.CLEAR") == "0")
    #expect(try Self.ids(Self.list(bo, "PEOPLE.NEARBY", "5", "km")).isEmpty)
    #expect(try ana.text("PEOPLE.NEARBY", "5", "km") == "ERR no live presence: PRESENCE.SET first")
    _ = boID
    let anonymous = try server.connect()
    #expect(try anonymous.text("PRESENCE.SET", "9", "47").hasPrefix("NOAUTH"))
    await server.stop()
  }

  @Test(
    "PEOPLE.NEARBY: findable people near the caller, nearest first, each with a primary card summary and a distance within 300 m, rounded to 100 m; never the caller, the unfindable, the expired, the far, the cardless; COUNT; bad arguments refused"
  )
  func nearbyRules() async throws {
    let server = try await Self.server()
    let (ana, _) = try Self.person(server, "Ana")
    let (bo, boID) = try Self.person(server, "Bo")
    let (cy, cyID) = try Self.person(server, "Cy")
    let (di, _) = try Self.person(server, "Di")
    let (ed, _) = try Self.person(server, "Ed")
    let (fay, _, _) = try server.signedIn("fay@x.org")  // no card
    let (gus, _) = try Self.person(server, "Gus")
    _ = try ana.object("PRESENCE.SET", "9.5200", "47.1400")
    _ = try bo.object("PRESENCE.SET", "9.5240", "47.1400")  // about 300 m
    _ = try cy.object("PRESENCE.SET", "9.5200", "47.1500")  // about 1.1 km
    _ = try di.object("PRESENCE.SET", "9.5210", "47.1400", "FINDABLE", "0")
    _ = try ed.object("PRESENCE.SET", "9.5205", "47.1400", "TTL", "1")
    _ = try fay.object("PRESENCE.SET", "9.5201", "47.1400")
    _ = try gus.object("PRESENCE.SET", "9.7000", "47.1400")  // about 13.6 km
    try await Task.sleep(for: .milliseconds(2100))  // Ed's presence expires
    let found = try Self.list(ana, "PEOPLE.NEARBY", "5", "km")
    #expect(Self.ids(found) == [boID, cyID])
    let distances = found.compactMap { $0["distance"] as? Int }
    #expect(distances.count == 2 && distances.allSatisfy { $0 % 100 == 0 })
    // Moved by up to 250 m (DistanceBlur), then rounded to 100 m.
    #expect(abs(distances[0] - 300) <= 300 && abs(distances[1] - 1100) <= 300, "\(distances)")
    for person in found {
      #expect(Set(person.keys) == ["accountId", "distance", "card"])
      let card = person["card"] as? [String: Any] ?? [:]
      #expect(
        Set(card.keys).isSubset(of: [
          "id", "firstName", "lastName", "prefix", "jobTitle", "company", "imageUrl", "city", "url",
        ]))
      #expect(card["url"] as? String != nil && card["firstName"] as? String != nil)
    }
    #expect(Self.ids(try Self.list(ana, "PEOPLE.NEARBY", "5", "km", "COUNT", "1")) == [boID])
    #expect(Self.ids(try Self.list(ana, "PEOPLE.NEARBY", "700", "m")) == [boID])
    #expect(
      Self.ids(try Self.list(ana, "PEOPLE.NEARBY", "20", "km")).contains(
        Int(try gus.object("WHOAMI")["id"] as? Int ?? 0)))
    for (bad, error) in [
      (["-1", "km"], "INVALID radius"), (["0", "m"], "INVALID radius"),
      (["51", "km"], "INVALID radius"), (["x", "km"], "ERR value is not a valid float"),
      (["1", "parsec"], "ERR unsupported unit"),
      (["1", "km", "COUNT", "0"], "ERR COUNT must be > 0"),
      (["1", "km", "COUNT"], "ERR syntax error"), (["1", "km", "ASC", "1"], "ERR syntax error"),
    ] {
      #expect(try Self.text(ana, ["PEOPLE.NEARBY"] + bad).hasPrefix(error), "\(bad)")
    }
    await server.stop()
  }

  @Test(
    "No reply places anyone more closely than their ~100 m cell: positions snap on arrival, so moving within the cell changes no distance anyone sees; no coordinate is ever in a reply"
  )
  func noTrilateration() async throws {
    let server = try await Self.server()
    let (ana, _) = try Self.person(server, "Ana")
    let (bo, _) = try Self.person(server, "Bo")
    let grid = PresenceGrid()
    // Two exact positions of Bo's in one cell, a few metres apart.
    let cell = grid.snap(longitude: 9.5312345, latitude: 47.1412345)
    let first = (cell.longitude + grid.step * 0.2, cell.latitude - grid.step * 0.3)
    let second = (cell.longitude - grid.step * 0.3, cell.latitude + grid.step * 0.2)
    let (a, b) = (
      grid.snap(longitude: first.0, latitude: first.1),
      grid.snap(longitude: second.0, latitude: second.1)
    )
    #expect(a.longitude == b.longitude && a.latitude == b.latitude)
    var seen: [[String]] = []
    let centre = (9.531, 47.141)
    for bob in [first, second] {
      _ = try bo.object("PRESENCE.SET", "\(bob.0)", "\(bob.1)")
      var replies: [String] = []
      // Ana walks around Bo, about 50 m at a time, searching each time.
      for step in 0..<40 {
        let angle = Double(step) * .pi / 20
        let lon = centre.0 + cos(angle) * 0.004
        let lat = centre.1 + sin(angle) * 0.003
        _ = try ana.object("PRESENCE.SET", "\(lon)", "\(lat)")
        let reply = try ana.command("PEOPLE.NEARBY", "2", "km").text
        replies.append(reply)
        for exact in [bob.0, bob.1, lon, lat] {
          #expect(!reply.contains(String(format: "%.4f", exact)), "\(reply)")
        }
      }
      seen.append(replies)
    }
    // Ana found Bo every time, at distances that changed as she walked, and the same whichever
    // of his two positions he sent.
    #expect(seen[0].allSatisfy { $0.contains(#""distance":"#) } && Set(seen[0]).count > 1)
    #expect(seen[0] == seen[1])
    await server.stop()
  }

  @Test(
    "PEOPLE.NEARBY and EXCHANGE.REQUEST are rate limited per account, together: LIMIT after the configured number a minute"
  )
  func rateLimit() async throws {
    let server = try await Self.server { $0.searchesPerMinute = 3 }
    let (ana, anaID) = try Self.person(server, "Ana")
    let (bo, boID) = try Self.person(server, "Bo")
    _ = try ana.object("PRESENCE.SET", "9.52", "47.14")
    _ = try bo.object("PRESENCE.SET", "9.52", "47.14")
    let limit = "LIMIT at most 3 PEOPLE.NEARBY and EXCHANGE.REQUEST a minute"
    for _ in 0..<3 { #expect(try Self.list(ana, "PEOPLE.NEARBY", "1", "km").count == 1) }
    #expect(try ana.text("PEOPLE.NEARBY", "1", "km") == limit)
    // Requests count too: each may tell whether someone is near.
    #expect(try ana.text("EXCHANGE.REQUEST", "\(boID)") == limit)
    #expect(try Self.list(bo, "EXCHANGE.PENDING").isEmpty)
    _ = try bo.object("EXCHANGE.REQUEST", "\(anaID)")
    _ = try bo.object("EXCHANGE.REQUEST", "\(anaID)")
    #expect(try Self.list(bo, "PEOPLE.NEARBY", "1", "km").count == 1)
    #expect(try bo.text("PEOPLE.NEARBY", "1", "km") == limit)
    await server.stop()
  }

  @Test(
    "EXCHANGE.REQUEST: pending until the other side asks too, then both wallets hold the other's primary card, with when, the midpoint rounded to 3 decimals and its place name; both hear it at once (redis-py subscribers); exchanged people no longer find each other"
  )
  func exchange() async throws {
    let server = try await Self.server()
    let (ana, anaID) = try Self.person(server, "Ana")
    let (bo, boID) = try Self.person(server, "Bo")
    let (cy, cyID) = try Self.person(server, "Cy")
    _ = try ana.object("PRESENCE.SET", "9.5200", "47.1400")
    _ = try bo.object("PRESENCE.SET", "9.5300", "47.1420")
    _ = try cy.object("PRESENCE.SET", "9.5250", "47.1410")
    let script = """
      import json, redis, sys
      def next(p, kind):
          while True:
              m = p.get_message(timeout=5)
              if m is None or m["type"] == kind:
                  return m
      # The clients are kept: one collected closes its pool, and its subscriber's connection.
      clients, subs = [], []
      for who in ["ana", "bo"]:
          clients.append(redis.Redis(port=\(server.port), username=who + "@x.org", password="secret1"))
          p = clients[-1].pubsub()
          p.subscribe("account:%d" % (\(anaID) if who == "ana" else \(boID)))
          next(p, "subscribe")
          subs.append(p)
      print("ready", flush=True)
      sys.stdin.readline()
      for p in subs:
          m = next(p, "message")
          e = json.loads(m["data"])
          print(m["channel"].decode(), e["event"], e["exchange"]["accountId"], e["exchange"]["card"]["firstName"], e["exchange"]["place"])
      """
    let listener = try PythonListener(script)
    var pending = try ana.object("EXCHANGE.REQUEST", "\(boID)")
    #expect(pending["status"] as? String == "pending" && pending["accountId"] as? Int == boID)
    // Asking again answers the same request.
    #expect(
      try ana.object("EXCHANGE.REQUEST", "\(boID)")["requestedAt"] as? String == pending[
        "requestedAt"] as? String)
    pending = try ana.object("EXCHANGE.REQUEST", "\(cyID)")
    let anaPending = try Self.list(ana, "EXCHANGE.PENDING")
    #expect(anaPending.map { $0["direction"] as? String } == ["outgoing", "outgoing"])
    #expect(Set(Self.ids(anaPending)) == [boID, cyID])
    let boPending = try Self.list(bo, "EXCHANGE.PENDING")
    #expect(
      Self.ids(boPending) == [anaID] && boPending.first?["direction"] as? String == "incoming")
    #expect((boPending.first?["card"] as? [String: Any])?["firstName"] as? String == "Ana")
    #expect(try bo.command("WALLET.LIST").text.hasSuffix("*0\r\n"))

    let done = try bo.object("EXCHANGE.REQUEST", "\(anaID)")
    #expect(done["status"] as? String == "exchanged")
    let exchange = done["exchange"] as? [String: Any] ?? [:]
    #expect(exchange["accountId"] as? Int == anaID)
    // The cells' midpoint, to 3 decimals, and the name the geocoder gave it.
    #expect(abs((exchange["lon"] as? Double ?? 0) - 9.525) <= 0.0011)
    #expect(abs((exchange["lat"] as? Double ?? 0) - 47.141) <= 0.0011)
    #expect(
      exchange["place"] as? String
        == "Near \(exchange["lon"] as? Double ?? 0),\(exchange["lat"] as? Double ?? 0)")
    let heard = try listener.finish()
    #expect(
      heard
        == "account:\(anaID) exchange \(boID) Bo \(exchange["place"] as? String ?? "")\naccount:\(boID) exchange \(anaID) Ana \(exchange["place"] as? String ?? "")\n",
      "\(heard)")

    for (c, other) in [(ana, "Bo"), (bo, "Ana")] {
      #expect(try c.command("WALLET.LIST").text.contains(#""firstName":"\#(other)""#))
      let list = try Self.list(c, "EXCHANGE.LIST")
      #expect(
        list.count == 1 && (list[0]["card"] as? [String: Any])?["firstName"] as? String == other)
      #expect(list[0]["place"] as? String == exchange["place"] as? String)
      #expect(list[0]["at"] as? String != nil)
    }
    #expect(Self.ids(try Self.list(ana, "EXCHANGE.PENDING")) == [cyID])
    #expect(try Self.list(bo, "EXCHANGE.PENDING").isEmpty)
    // Exchanged: no longer found, and not again.
    #expect(Self.ids(try Self.list(ana, "PEOPLE.NEARBY", "5", "km")) == [cyID])
    #expect(Self.ids(try Self.list(bo, "PEOPLE.NEARBY", "5", "km")) == [cyID])
    #expect(
      try ana.text("EXCHANGE.REQUEST", "\(boID)") == "ERR already exchanged with this account")
    await server.stop()
  }

  @Test(
    "EXCHANGE.REQUEST refuses yourself, unknown or unfindable or far accounts, the cardless, and non-ids, storing nothing"
  )
  func exchangeRefusals() async throws {
    let server = try await Self.server()
    let (ana, anaID) = try Self.person(server, "Ana")
    let (bo, boID) = try Self.person(server, "Bo")
    let (cy, cyID) = try Self.person(server, "Cy")
    let (di, diID, _) = try server.signedIn("di@x.org")
    _ = try bo.object("PRESENCE.SET", "9.52", "47.14")
    #expect(
      try ana.text("EXCHANGE.REQUEST", "\(boID)") == "ERR no live presence: PRESENCE.SET first")
    _ = try ana.object("PRESENCE.SET", "9.52", "47.14")
    _ = try bo.object("PRESENCE.SET", "9.52", "47.14", "FINDABLE", "0")
    _ = try cy.object("PRESENCE.SET", "10.52", "47.14")  // 75 km
    _ = try di.object("PRESENCE.SET", "9.52", "47.14")
    #expect(try ana.text("EXCHANGE.REQUEST", "\(anaID)") == "INVALID accountId that is you")
    for other in ["\(boID)", "\(cyID)", "99999", "x"] {
      #expect(
        try ana.text("EXCHANGE.REQUEST", other) == "NOTFOUND nobody findable by that id near you",
        "\(other)")
    }
    #expect(
      try ana.text("EXCHANGE.REQUEST", "\(diID)") == "NOTFOUND nobody findable by that id near you")
    #expect(
      try di.text("EXCHANGE.REQUEST", "\(anaID)")
        == "INVALID card you need a primary card to exchange")
    for c in [ana, bo, cy, di] { #expect(try Self.list(c, "EXCHANGE.PENDING").isEmpty) }
    await server.stop()
  }

  @Test(
    "A restart keeps exchanges and pending requests but no presence; deleting an account takes its presence, requests and exchanges"
  )
  func restartAndDeletion() async throws {
    let server = try await Self.server()
    let (ana0, anaID) = try Self.person(server, "Ana")
    let (bo0, boID) = try Self.person(server, "Bo")
    let (cy0, cyID) = try Self.person(server, "Cy")
    var (ana, bo, cy) = (ana0, bo0, cy0)
    for c in [ana, bo, cy] { _ = try c.object("PRESENCE.SET", "9.52", "47.14") }
    _ = try ana.object("EXCHANGE.REQUEST", "\(boID)")
    _ = try bo.object("EXCHANGE.REQUEST", "\(anaID)")
    _ = try cy.object("EXCHANGE.REQUEST", "\(anaID)")
    let before = try ana.text("EXCHANGE.LIST")
    try await server.restart()
    ana = try server.connect()
    bo = try server.connect()
    cy = try server.connect()
    for (c, who) in [(ana, "ana"), (bo, "bo"), (cy, "cy")] {
      #expect(try c.text("AUTH", "\(who)@x.org", "secret1") == "OK")
      #expect(try c.text("PEOPLE.NEARBY", "5", "km") == "ERR no live presence: PRESENCE.SET first")
    }
    #expect(try ana.text("EXCHANGE.LIST") == before)
    let pending = try Self.list(ana, "EXCHANGE.PENDING")
    #expect(Self.ids(pending) == [cyID], "\(pending)")
    #expect(
      try ana.text("EXCHANGE.REQUEST", "\(boID)") == "ERR already exchanged with this account")
    // Ana completes Cy's request from before the restart.
    #expect(try ana.object("EXCHANGE.REQUEST", "\(cyID)")["status"] as? String == "exchanged")
    _ = try cy.object("PRESENCE.SET", "9.52", "47.14")
    _ = try bo.object("PRESENCE.SET", "9.52", "47.14")
    #expect(try bo.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(Self.ids(try Self.list(ana, "EXCHANGE.LIST")) == [cyID])
    #expect(Self.ids(try Self.list(cy, "PEOPLE.NEARBY", "5", "km")).isEmpty)
    try await server.restart()
    ana = try server.connect()
    _ = try ana.text("AUTH", "ana@x.org", "secret1")
    #expect(Self.ids(try Self.list(ana, "EXCHANGE.LIST")) == [cyID])
    await server.stop()
  }
}

/// A python3 program that prints "ready" once set up, then runs on when told, its output kept.
final class PythonListener {
  private let process = ChildProcess()
  private let input = Pipe()
  private let output = Pipe()

  init(_ script: String) throws {
    guard let python = RedisProcess.executable("python3") else {
      throw RESPConnection.Failed(description: "python3 must be on the PATH")
    }
    process.executableURL = python
    process.arguments = ["-c", script]
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    var line = Data()
    while line.last != UInt8(ascii: "\n") {
      let byte = output.fileHandleForReading.readData(ofLength: 1)
      guard !byte.isEmpty else { break }
      line += byte
    }
    guard String(decoding: line, as: UTF8.self) == "ready\n" else {
      throw RESPConnection.Failed(description: "python3: \(String(decoding: line, as: UTF8.self))")
    }
  }

  /// Lets it run on; what it printed after "ready".
  func finish() throws -> String {
    input.fileHandleForWriting.write(Data("go\n".utf8))
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  deinit { if process.isRunning { process.terminate() } }
}
