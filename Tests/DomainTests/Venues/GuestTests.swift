import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing
import Venues

/// Guests checked in from a venue's page (`Venues.checkInGuest`, what `/v/<code>` calls):
/// what they must leave, what bounds them, who sees them, the exposure mails they get, and
/// what survives a restart; the check-in link the QR code holds; a rotated code.
@Suite("Venue guests")
struct GuestTests {
  static func guest(
    _ server: TestDaemon, _ code: String, _ name: String, email: String? = nil,
    phone: String? = nil, client: String = "203.0.113.7"
  ) async -> Result<GuestVisit, VenueError> {
    await withCheckedContinuation { continuation in
      server.daemon.domain.venues.checkInGuest(
        code: code, name: name, email: email, phone: phone, client: client
      ) { continuation.resume(returning: $0) }
    }
  }

  /// The mails in the daemon's outbox, as text.
  static func mails(_ server: TestDaemon) throws -> [String] {
    let outbox = server.directory + "/outbox"
    // The mailer's own files only: an atomic write's temporary file, listed while being
    // written, read empty once in CI.
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? [])
      .filter { $0.hasSuffix(".eml") && !$0.hasPrefix(".") }
    return try names.sorted().map { try String(contentsOfFile: outbox + "/" + $0, encoding: .utf8) }
  }

  static func waitForMails(_ server: TestDaemon, _ count: Int) async throws -> [String] {
    for _ in 0..<200 {
      let mails = try mails(server)
      if mails.count >= count { return mails }
      try await Task.sleep(for: .milliseconds(25))
    }
    return try mails(server)
  }

  @Test(
    "a guest leaves a name and an email or a phone (checked, normalised); an unknown code is refused; the owner alone sees guests beside account visits, newest first, and they survive a restart"
  )
  func checkInAndVisitors() async throws {
    let clock = TestClock()
    let server = try await TestDaemon.venues(clock: clock)
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (visitor, visitorID, _) = try server.signedIn("visitor@x.org")
    let venue = try owner.venue("Café", 9.5, 47.1)
    let code = try owner.text("VENUE.CODE", venue)

    let refused: [(String, String?, String?, String)] = [
      ("  ", "a@x.org", nil, "name"),
      (String(repeating: "x", count: 201), "a@x.org", nil, "name"),
      ("Ann", nil, nil, "contact"),
      ("Ann", " ", " ", "contact"),
      ("Ann", "not-an-email", nil, "email"),
      ("Ann", "a@x.org\r\nBcc: b@x.org", nil, "email"),
      ("Ann", nil, "12345", "phone"),
      ("Ann", nil, "+41 79 123 45 67 89 012", "phone"),
      ("Ann", nil, "call me", "phone"),
    ]
    for (name, email, phone, expected) in refused {
      let result = await Self.guest(server, code, name, email: email, phone: phone)
      guard case .failure(.invalid(let field, _)) = result else {
        Issue.record("\(name) \(email ?? "-") \(phone ?? "-"): \(result)")
        continue
      }
      #expect(field == expected)
    }
    let unknown = await Self.guest(server, "nosuchcode", "Ann", email: "ann@x.org")
    #expect(unknown.failure == .notFound("no venue has this code"))

    let ann = try await Self.guest(server, code, " Ann Lee ", email: "ann@x.org").get()
    #expect(ann.name == "Ann Lee" && ann.email == "ann@x.org" && ann.phone == nil)
    #expect(ann.end == ann.start + 7_200, "a guest's stay is Configuration.guestStay")
    clock.advance(60)
    #expect(try visitor.text("CHECKIN", code).contains("\"venueId\""))
    clock.advance(60)
    let bo = try await Self.guest(server, code, "Bo", phone: "+41 (79) 123-45.67").get()
    #expect(bo.phone == "+41791234567" && bo.email == nil)

    func visitors() throws -> [[String: Any]] { try owner.objects("VENUE.VISITORS", venue) }
    let listed = try visitors()
    #expect(listed.count == 3)
    #expect((listed[0]["guest"] as? [String: Any])?["phone"] as? String == "+41791234567")
    #expect(listed[1]["accountId"] as? Int == visitorID && listed[1]["guest"] == nil)
    #expect((listed[2]["guest"] as? [String: Any])?["name"] as? String == "Ann Lee")
    #expect((listed[2]["guest"] as? [String: Any])?["email"] as? String == "ann@x.org")
    #expect(listed[2]["accountId"] == nil && listed[2]["isOpen"] as? Bool == false)
    #expect(try owner.objects("VENUE.VISITORS", venue, "COUNT", "2").count == 2)
    #expect(
      try visitor.text("VENUE.VISITORS", venue) == "NOPERM the venue is not yours",
      "a visitor never sees who else was there")

    try await server.restart()
    let again = try server.connect()
    #expect(try again.text("AUTH", "owner@x.org", "secret1") == "OK")
    let reread = try again.objects("VENUE.VISITORS", venue)
    #expect(reread.count == 3)
    #expect(
      reread.map { ($0["guest"] as? [String: Any])?["name"] as? String }
        == listed.map { ($0["guest"] as? [String: Any])?["name"] as? String })
    await server.stop()
  }

  @Test(
    "guest check-ins are bounded by the address they come from and by the venue; the bound holds across venues and is not reset by another address"
  )
  func bounded() async throws {
    let server = try await TestDaemon.venues()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let codes = try (0..<2).map { try owner.text("VENUE.CODE", try owner.venue("V\($0)", 1, 1)) }
    let perAddress = server.daemon.domain.venues.configuration.guestsPerAddress
    for i in 0..<perAddress {
      _ = try await Self.guest(server, codes[i % 2], "G\(i)", email: "g\(i)@x.org").get()
    }
    let refused = await Self.guest(server, codes[1], "One more", email: "m@x.org")
    guard case .failure(.limit(let why)) = refused else {
      Issue.record("the \(perAddress + 1)th from one address: \(refused)")
      return
    }
    #expect(why.hasPrefix("at most \(perAddress) guest check-ins an hour from one address"))
    let other = await Self.guest(
      server, codes[1], "Other", email: "o@x.org", client: "198.51.100.9")
    #expect(other.failure == nil, "another address has its own bound")
    await server.stop()
  }

  @Test(
    "a venue takes at most guestsPerVenue guests an hour, however many addresses they come from; another venue is not held back"
  )
  func boundedPerVenue() async throws {
    var configuration = Venues.Configuration()
    configuration.guestsPerVenue = 5
    let server = try await TestDaemon(domain: { $0.venues = configuration })
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let venues = try (0..<2).map { try owner.venue("V\($0)", 1, 1) }
    let codes = try venues.map { try owner.text("VENUE.CODE", $0) }
    for i in 0..<5 {
      _ = try await Self.guest(
        server, codes[0], "G\(i)", email: "g\(i)@x.org", client: "198.51.100.\(i)"
      ).get()
    }
    let refused = await Self.guest(
      server, codes[0], "Sixth", email: "s@x.org", client: "203.0.113.99")
    guard case .failure(.limit(let why)) = refused else {
      Issue.record("a sixth guest from a sixth address: \(refused)")
      return
    }
    #expect(why.hasPrefix("at most 5 guest check-ins an hour at this venue"))
    #expect(
      try owner.objects("VENUE.VISITORS", venues[0]).count == 5, "the refused one is not kept")
    let elsewhere = await Self.guest(
      server, codes[1], "Elsewhere", email: "e@x.org", client: "203.0.113.99")
    #expect(elsewhere.failure == nil, "the other venue has its own bound")
    await server.stop()
  }

  @Test(
    "EXPOSURE lists the guests who overlapped (name and contact); EXPOSURE.REPORT mails a guest with an email once, never says who, and a phone-only guest is left to the authority; the told state survives a restart"
  )
  func exposureMails() async throws {
    let clock = TestClock()
    let results = TestResults()
    let server = try await TestDaemon.venues(clock: clock, results: results)
    let admin = try server.connect()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (sick, sickID, _) = try server.signedIn("sick@x.org")
    let venue = try owner.venue("Bar Süd", 2.35, 48.85)
    let code = try owner.text("VENUE.CODE", venue)
    let t0 = clock.seconds
    _ = try sick.text("CHECKIN", code)
    clock.advance(600)
    let ann = try await Self.guest(server, code, "Ann", email: "ann@x.org").get()
    let bo = try await Self.guest(server, code, "Bo", phone: "+41791234567").get()
    clock.advance(3_600)
    _ = try sick.text("CHECKOUT")
    clock.advance(3 * 3_600)
    // After the sick account left: no overlap.
    _ = try await Self.guest(server, code, "Late", email: "late@x.org").get()

    let found = try admin.objects("EXPOSURE", "\(sickID)", "FROM", "0", "TO", "4000000000")
    let guests = found.compactMap { $0["guest"] as? [String: Any] }
    #expect(guests.count == 2, "\(found)")
    #expect(Set(guests.compactMap { $0["name"] as? String }) == ["Ann", "Bo"])
    #expect(guests.contains { $0["phone"] as? String == "+41791234567" })
    let annRow = try #require(
      found.first { ($0["guest"] as? [String: Any])?["name"] as? String == "Ann" })
    #expect(annRow["accountId"] == nil && annRow["visitId"] as? Int == Int(ann.id))
    #expect(
      annRow["minutes"] as? Double == 60, "from Ann's check-in to the sick account's check-out")
    _ = bo

    results.set(sickID, Date(timeIntervalSince1970: t0 + 86_400))
    clock.advance(86_400)
    #expect(try sick.text("EXPOSURE.REPORT") == "1", "Ann is told; Bo left only a phone")
    let mails = try await Self.waitForMails(server, 1)
    #expect(mails.count == 1)
    let mail = try #require(mails.first)
    #expect(mail.contains("To: ann@x.org") && mail.contains("Bar Süd"))
    #expect(mail.contains("Hello Ann"))
    #expect(!mail.contains("sick@x.org"), "never who")
    #expect(try sick.text("EXPOSURE.REPORT") == "0", "told once")

    try await server.restart()
    let again = try server.connect()
    #expect(try again.text("AUTH", "sick@x.org", "secret1") == "OK")
    #expect(try again.text("EXPOSURE.REPORT") == "0", "still told after a restart")
    try await Task.sleep(for: .milliseconds(200))
    #expect(try Self.mails(server).count == 1)
    await server.stop()
  }

  @Test(
    "the QR code's link is <public-url>/v/<code> and CHECKIN takes it as it takes the code; a rotated code's page names the venue until the next rotation, also after a restart"
  )
  func linkAndRotation() async throws {
    let server = try await TestDaemon.venues()
    let (owner, _, _) = try server.signedIn("owner@x.org")
    let (visitor, _, _) = try server.signedIn("visitor@x.org")
    let venue = try owner.venue("Kiosk", 8.5, 47.4)
    let first = try owner.text("VENUE.CODE", venue)
    let venues = server.daemon.domain.venues
    #expect(venues.checkInLink(code: first) == TestDaemon.publicURL + "/v/" + first)
    #expect(try visitor.text("CHECKIN", venues.checkInLink(code: first)).contains("\"venueId\""))
    #expect(
      try visitor.text("CHECKIN", TestDaemon.publicURL + "/v/nosuchcode")
        == "NOTFOUND no venue has this code")

    let second = try owner.text("VENUE.ROTATE", venue)
    guard case .rotated(let old) = venues.page(code: first) else {
      Issue.record("the old code's page: \(venues.page(code: first))")
      return
    }
    #expect(old.name == "Kiosk")
    guard case .venue = venues.page(code: second) else {
      Issue.record("the new code's page")
      return
    }
    #expect(venues.page(code: "nosuchcode") == .unknown)
    #expect(try visitor.text("CHECKIN", first) == "NOTFOUND no venue has this code")

    try await server.restart()
    let reopened = server.daemon.domain.venues
    guard case .rotated = reopened.page(code: first) else {
      Issue.record("after a restart: \(reopened.page(code: first))")
      return
    }
    let again = try server.connect()
    #expect(try again.text("AUTH", "owner@x.org", "secret1") == "OK")
    let third = try again.text("VENUE.ROTATE", venue)
    #expect(reopened.page(code: first) == .unknown, "only the last replaced code is known")
    guard case .rotated = reopened.page(code: second), case .venue = reopened.page(code: third)
    else {
      Issue.record("after a second rotation")
      return
    }
    await server.stop()
  }
}

extension Result {
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
