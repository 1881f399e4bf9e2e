import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// EXPOSURE against a brute-force overlap computation, its permissions, and EXPOSURE.REPORT's
/// notices that never say who, through the protocol over real sockets.
@Suite("Exposure")
struct ExposureTests {
  /// A visit as the test's own model of the rules keeps it.
  struct Stay {
    let account: Int
    let dependant: String?
    let venue: Int
    let start: Double
    var end: Double?
  }

  /// One overlap as EXPOSURE answers it.
  struct Overlap: Hashable {
    let account: Int
    let dependant: String?
    let venue: Int
    let from: Double
    let to: Double
  }

  static func bruteForce(_ stays: [Stay], subject: Int, from: Double, to: Double, now: Double)
    -> Set<Overlap>
  {
    var found: Set<Overlap> = []
    for mine in stays where mine.account == subject && mine.dependant == nil {
      for other in stays where other.account != subject && other.venue == mine.venue {
        let a = max(mine.start, other.start, from)
        let b = min(mine.end ?? now, other.end ?? now, to)
        if a < b {
          found.insert(
            Overlap(
              account: other.account, dependant: other.dependant, venue: other.venue, from: a, to: b
            ))
        }
      }
    }
    return found
  }

  static func overlaps(_ reply: [[String: Any]]) -> Set<Overlap> {
    Set(
      reply.map {
        Overlap(
          account: $0["accountId"] as? Int ?? -1, dependant: $0["dependant"] as? String,
          venue: $0["venueId"] as? Int ?? -1, from: seconds($0["from"]) ?? -1,
          to: seconds($0["to"]) ?? -1)
      })
  }

  @Test(
    "EXPOSURE equals a brute-force overlap computation over random histories with dependants, open visits and touching intervals",
    arguments: [1, 2, 3] as [UInt64])
  func matchesBruteForce(seed: UInt64) async throws {
    var rng = SeededTestRandom(seed: seed)
    let clock = TestClock()
    let server = try await TestDaemon.venues(clock: clock)
    let admin = try server.connect()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let codes = try (0..<3).map { try owner.text("VENUE.CODE", try owner.venue("V\($0)", 1, 1)) }
    let venueIDs = try owner.objects("VENUE.MINE").map { $0["id"] as? Int ?? 0 }
    var people: [(c: RESPConnection, id: Int, kid: String?)] = []
    for i in 0..<6 {
      let (c, id, _) = try server.signedIn("p\(i)@x.org")
      let kid = i % 2 == 0 ? "\(try c.object("DEPENDANT.ADD", "Kid\(i)")["id"] as? Int ?? 0)" : nil
      people.append((c, id, kid))
    }
    let t0 = clock.seconds
    var stays: [Stay] = []
    var open: [String: Int] = [:]  // "account/dependant" → index in stays
    func key(_ p: Int, _ kid: String?) -> String { "\(p)/\(kid ?? "")" }
    for _ in 0..<150 {
      // Steps of 0 to 5 minutes, in whole minutes: many visits touch, some start together.
      clock.advance(Double(rng.below(6)) * 60)
      let now = clock.seconds
      let p = rng.below(people.count)
      let person = people[p]
      if rng.below(4) == 0 {
        _ = try person.c.object("CHECKOUT")
        for k in [nil, person.kid] {
          if let i = open.removeValue(forKey: key(p, k)) { stays[i].end = now }
        }
        continue
      }
      let venue = rng.below(codes.count)
      let withKid = person.kid != nil && rng.below(2) == 0
      var command = ["CHECKIN", codes[venue]]
      if withKid { command += ["WITH", person.kid!] }
      let reply = try person.c.command(command)
      guard case .bulkString = reply.value else {
        Issue.record("CHECKIN: \(reply.text)")
        return
      }
      for k in withKid ? [nil, person.kid] : [nil] {
        if let i = open[key(p, k)] {
          if stays[i].venue == venueIDs[venue] { continue }
          stays[i].end = now
        }
        stays.append(
          Stay(
            account: person.id, dependant: k.map { _ in "Kid\(p)" },
            venue: venueIDs[venue], start: now))
        open[key(p, k)] = stays.count - 1
      }
    }
    clock.advance(300)
    let now = clock.seconds
    #expect(stays.contains { $0.end == nil } && stays.contains { $0.end != nil })
    // The venues saw what the model made: each visit, open or closed when the model says.
    for venue in venueIDs {
      let seen = try owner.objects("VENUE.VISITORS", "\(venue)", "COUNT", "1000").map {
        "\($0["accountId"] as? Int ?? 0) \($0["dependant"] as? String ?? "") "
          + "\(seconds($0["checkedInAt"]) ?? 0) \(seconds($0["checkedOutAt"]) ?? -1)"
      }
      let modelled = stays.filter { $0.venue == venue }.map {
        "\($0.account) \($0.dependant ?? "") \($0.start) \($0.end ?? -1)"
      }
      #expect(seen.sorted() == modelled.sorted(), "venue \(venue)")
    }
    var compared = 0
    for person in people {
      let windows = [
        (t0 - 60, now + 600), (t0 + 1800, t0 + 3600),
        (t0 + Double(rng.below(200)) * 60, now - Double(rng.below(60)) * 60),
      ]
      for (from, to) in windows where from < to {
        let reply = try admin.objects(
          "EXPOSURE", "\(person.id)", "FROM", "\(Int(from))", "TO", "\(Int(to))")
        let expected = Self.bruteForce(stays, subject: person.id, from: from, to: to, now: now)
        #expect(Self.overlaps(reply) == expected, "subject \(person.id) \(from)..<\(to)")
        #expect(reply.count == expected.count, "no overlap twice")
        for entry in reply {
          // Minutes to two decimals.
          let length = (seconds(entry["to"]) ?? 0) - (seconds(entry["from"]) ?? 0)
          #expect(abs((entry["minutes"] as? Double ?? -1) - length / 60) <= 0.005 + 1e-9)
        }
        compared += expected.count
      }
    }
    #expect(compared > 20, "the histories overlap enough to test something")
    await server.stop()
  }

  @Test(
    "EXPOSURE is the admin's and health authorities' only (NOPERM otherwise); bad arguments are refused"
  )
  func permissions() async throws {
    let server = try await TestDaemon.venues()
    let admin = try server.connect()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (nurse, nurseID, _) = try server.signedIn("nurse@x.org")
    let window = ["FROM", "0", "TO", "2000000000"]
    #expect(try ana.command(["EXPOSURE", "\(nurseID)"] + window).text.hasPrefix("-NOPERM"))
    #expect(try nurse.command(["EXPOSURE", "\(anaID)"] + window).text.hasPrefix("-NOPERM"))
    #expect(try admin.text("ACCOUNT.ROLE", "\(nurseID)", "health").contains("health"))
    #expect(try nurse.command(["EXPOSURE", "\(anaID)"] + window).text == "*0\r\n")
    #expect(try admin.command(["EXPOSURE", "\(anaID)"] + window).text == "*0\r\n")
    #expect(
      try admin.command(["EXPOSURE", "999"] + window).text == "-NOTFOUND no such account\r\n")
    #expect(
      try admin.text("EXPOSURE", "\(anaID)", "FROM", "5", "TO", "1") == "ERR FROM must be before TO"
    )
    #expect(
      try admin.text("EXPOSURE", "\(anaID)", "FROM", "x", "TO", "1").hasPrefix("ERR invalid time"))
    #expect(try admin.text("EXPOSURE", "\(anaID)", "FROM", "1", "FROM", "2") == "ERR syntax error")
    #expect(try admin.text("EXPOSURE", "\(anaID)", "FROM", "1").hasPrefix("ERR wrong number"))
    #expect(
      try admin.command(
        "EXPOSURE", "\(anaID)", "FROM", "2026-11-01T00:00:00Z", "TO", "2026-11-02T00:00:00Z"
      ).text == "*0\r\n")
    await server.stop()
  }

  @Test("EXPOSURE.REPORT reads the reporter's positive test from their private documents")
  func reportWithDocuments() async throws {
    let server = try await TestDaemon()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let code = try owner.text("VENUE.CODE", try owner.venue("Cafe", 1, 1))
    let (sick, _, _) = try server.signedIn("sick@x.org")
    let (ana, _, _) = try server.signedIn("ana@x.org")
    _ = try sick.object("CHECKIN", code)
    _ = try ana.object("CHECKIN", code)
    #expect(try sick.text("EXPOSURE.REPORT") == "NOTFOUND no positive test result on file")
    let today = ISO8601DateFormatter.string(
      from: Date(), timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
    let pdf = try MediaFixtures.bytes("result.pdf")
    let negative = try DocumentTests.put(sick, "TEST-NEGATIVE", today, pdf)
    #expect(DocumentTests.object(negative) != nil, "\(negative)")
    #expect(try sick.text("EXPOSURE.REPORT") == "NOTFOUND no positive test result on file")
    let positive = try DocumentTests.put(sick, "TEST-POSITIVE", today, pdf)
    #expect(DocumentTests.object(positive) != nil, "\(positive)")
    #expect(try sick.text("EXPOSURE.REPORT") == "1", "Ana, still in")
    #expect(try ana.objects("EXPOSURE.MINE").count == 1)
    await server.stop()
  }

  @Test(
    "EXPOSURE.REPORT by a person with a positive test tells each overlapping visitor the venue and an hour-rounded window over pub/sub and EXPOSURE.MINE, never who; touching visitors hear nothing"
  )
  func report() async throws {
    let clock = TestClock()
    clock.seconds = 1_800_000_000  // a whole hour
    let results = TestResults()
    let server = try await TestDaemon.venues(clock: clock, results: results)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let cafe = try owner.venue("Cafe", 1, 1)
    let code = try owner.text("VENUE.CODE", cafe)
    let (sick, sickID, sickName) = try server.signedIn("sick@x.org")
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, boID, _) = try server.signedIn("bo@x.org")
    let kid = "\(try ana.object("DEPENDANT.ADD", "Kim")["id"] as? Int ?? 0)"
    let anaHears = try NotificationTests.listener(server, "ana@x.org", "account:\(anaID)")
    let boHears = try NotificationTests.listener(server, "bo@x.org", "account:\(boID)")
    let t0 = clock.seconds
    // Bo leaves as the sick person arrives: touching, no overlap.
    _ = try bo.object("CHECKIN", code)
    clock.advance(1200)
    _ = try bo.object("CHECKOUT")
    _ = try sick.object("CHECKIN", code)
    clock.advance(600)
    _ = try ana.object("CHECKIN", code, "WITH", kid)
    clock.advance(1800)
    _ = try sick.object("CHECKOUT")
    #expect(try sick.text("EXPOSURE.REPORT") == "NOTFOUND no positive test result on file")
    results.set(sickID, Date(timeIntervalSince1970: t0 + 86_400))
    clock.advance(86_400)
    #expect(try sick.text("EXPOSURE.REPORT") == "2", "Ana and Kim")
    var heard: [[String: Any]] = []
    for _ in 0..<2 {
      let (channel, json) = try NotificationTests.next(anaHears)
      #expect(channel == "account:\(anaID)")
      heard.append(json)
    }
    for json in heard {
      #expect(
        Set(json.keys).isSubset(of: ["event", "venueId", "venueName", "from", "to", "dependant"]))
      #expect(json["event"] as? String == "exposure" && json["venueName"] as? String == "Cafe")
      #expect(seconds(json["from"]) == t0 && seconds(json["to"]) == t0 + 3600, "\(json)")
      let text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
      #expect(!text.contains(sickName) && !text.contains("sick") && !text.contains("\(sickID),"))
    }
    #expect(heard.compactMap { $0["dependant"] as? String } == ["Kim"])
    #expect(try NotificationTests.heardNothing(boHears), "touching is not overlapping")
    let mine = try ana.objects("EXPOSURE.MINE")
    #expect(mine.count == 2 && mine.allSatisfy { $0["venueId"] as? Int == Int(cafe) })
    #expect(
      mine.allSatisfy {
        Set($0.keys).isSubset(of: [
          "venueId", "venueName", "from", "to", "reportedAt", "dependant", "dependantId",
        ])
      })
    #expect(try bo.objects("EXPOSURE.MINE").isEmpty)
    // Reporting again tells nobody twice.
    #expect(try sick.text("EXPOSURE.REPORT") == "0")
    try await server.restart()
    let again = try server.connect()
    _ = try again.text("AUTH", "ana@x.org", "secret1")
    #expect(try again.objects("EXPOSURE.MINE").count == 2)
    await server.stop()
  }
}

extension ExposureTests {
  @Test(
    "redis-py: a visitor's RESP3 pub/sub hears an exposure report, with the venue and never who")
  func redisPy() async throws {
    let clock = TestClock()
    let results = TestResults()
    let server = try await TestDaemon.venues(clock: clock, results: results)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let code = try owner.text("VENUE.CODE", try owner.venue("Bakery", 1, 1))
    let (sick, sickID, sickName) = try server.signedIn("sick@x.org")
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    _ = try sick.object("CHECKIN", code)
    clock.advance(600)
    _ = try ana.object("CHECKIN", code)
    clock.advance(600)
    _ = try sick.object("CHECKOUT")
    results.set(sickID, Date(timeIntervalSince1970: clock.seconds))
    let script = """
      import json, redis
      visitor = redis.Redis(port=\(server.port), username="ana@x.org", password="secret1", protocol=3)
      sick = redis.Redis(port=\(server.port), username="sick@x.org", password="secret1")
      p = visitor.pubsub()
      p.subscribe("account:\(anaID)")
      print(p.get_message(timeout=5)["type"])
      print(sick.execute_command("EXPOSURE.REPORT"))
      m = p.get_message(timeout=5)
      print(m["channel"].decode(), m["data"].decode())
      print(len(visitor.execute_command("EXPOSURE.MINE")))
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    let lines = output.split(separator: "\n").map(String.init)
    #expect(lines.count == 4 && lines[0] == "subscribe" && lines[1] == "1" && lines[3] == "1")
    let heard = lines.count > 2 ? lines[2] : ""
    #expect(heard.hasPrefix("account:\(anaID) {"))
    let json = String(heard.drop { $0 != "{" })
    let object =
      (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]) ?? [:]
    #expect(Set(object.keys) == ["event", "venueId", "venueName", "from", "to"], "\(object)")
    #expect(object["venueName"] as? String == "Bakery")
    #expect(!json.contains(sickName) && !json.contains("sick"))
    await server.stop()
  }
}

/// SplitMix64, for histories the same on every run.
struct SeededTestRandom {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func below(_ n: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(n))
  }
}
