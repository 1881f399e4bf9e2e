import Foundation
import RESP
import RedisTestSupport
import Testing

/// `cardatlas import`, run as the built executable, into a data directory and into a running
/// daemon; the cards checked through the protocol and in the store.
@Suite("cardatlas import", .serialized)
struct ImportTests {
  static let header =
    "externalId,ownerEmail,firstName,lastName,company,email,city,region,country,lon,lat\n"

  /// Geocoded (Vaduz; Prattville, Alabama), given lon/lat, not found, and invalid rows.
  static let mixed =
    header + """
      v1,anna@example.com,Anna,Frick,Hilti,anna@example.com,Vaduz,,LI,,
      p1,bob@example.com,Bob,"Smith, Jr.",Acme,bob@example.com,Prattville,Alabama,US,,
      m1,carl@example.com,Carl,,,,,,,-0.1276,51.5072
      bad1,dora@example.com,Dora,,,not-an-email,,,,,
      bad2,emil@example.com,,NoFirst,,,,,,,
      nf1,fay@example.com,Fay,,,,Qwzxvbnm,,,,

      """

  @Test(
    "CSV into a data directory: geocoded cards on the map, invalid rows reported, the rest imported"
  )
  func csvIntoDataDirectory() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let input = try scratch.write("people.csv", Self.mixed)
    let run = try runImport(
      [input, "--data", scratch.path("var"), "--report", scratch.path("report.csv")], in: scratch)
    #expect(run.status == 1, "a failed row makes the exit status 1: \(run.err)")
    #expect(run.out.contains("3 created"), "\(run.out)")
    #expect(run.out.contains("2 failed"), "\(run.out)")

    let rows = try reportRows(scratch.path("report.csv"))
    #expect(rows.map { $0["row"] } == ["1", "2", "3", "4", "5", "6"])
    #expect(
      rows.map { $0["status"] } == [
        "created", "created", "created", "failed", "failed", "not-found",
      ])
    #expect(rows[0]["label"] == "Vaduz, Liechtenstein")
    #expect(rows[1]["label"] == "Prattville, Alabama, United States")
    #expect(Double(rows[0]["confidence"] ?? "") ?? 0 >= 0.5)
    #expect(rows[2]["lon"] == "-0.1276" && rows[2]["lat"] == "51.5072")
    #expect(rows[3]["reason"] == "INVALID email: not an email address")
    #expect(rows[4]["reason"] == "INVALID firstName: required")
    #expect(rows[5]["reason"]?.contains("no match") == true)

    // The owners were invited: accounts without a password.
    let set = try CardSet(data: scratch.path("var"))
    #expect(set.cards.count == 4)
    #expect(set.accounts.contains("anna@example.com 1"))
    #expect(!set.accounts.contains { $0.hasPrefix("dora@") || $0.hasPrefix("emil@") })

    let daemon = try Daemon(data: scratch.path("var"), in: scratch)
    defer { daemon.stop() }
    let viewer = try daemon.member()
    let nearVaduz = try viewer.command(
      "CARD.SEARCH", "FROMLONLAT", "9.52", "47.14", "BYRADIUS", "5", "km")
    #expect(nearVaduz.text.contains("\"firstName\":\"Anna\""), "\(nearVaduz.text)")
    #expect(!nearVaduz.text.contains("Bob"))
    let nearPrattville = try viewer.command(
      "CARD.SEARCH", "FROMLONLAT", "-86.46", "32.46", "BYRADIUS", "10", "km")
    #expect(nearPrattville.text.contains("\"firstName\":\"Bob\""), "\(nearPrattville.text)")
    let nearLondon = try viewer.command(
      "CARD.SEARCH", "FROMLONLAT", "-0.1276", "51.5072", "BYRADIUS", "1", "km")
    #expect(nearLondon.text.contains("\"firstName\":\"Carl\""), "\(nearLondon.text)")
    // An invited owner has no password: none signs it in.
    let signIn = try RESPConnection(port: daemon.port).command(
      "SESSION.OPEN", "anna@example.com", "any password at all")
    #expect(signIn.text.hasPrefix("-WRONGPASS"), "\(signIn.text)")
  }

  @Test("JSON Lines into a running daemon, as its admin")
  func jsonLinesIntoDaemon() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let daemon = try Daemon(data: scratch.path("var"), in: scratch)
    defer { daemon.stop() }
    let input = try scratch.write(
      "people.jsonl",
      """
      {"externalId": "j1", "ownerEmail": "gus@example.com", "firstName": "Gus", "address": "Paris, TX"}
      {"externalId": "j2", "ownerEmail": "hal@example.com", "firstName": "Hal", "lon": 9.52, "lat": 47.14, "webLinks": [{"url": "https://example.com"}]}
      {"externalId": "j3", "ownerEmail": "ida@example.com", "firstName": "Ida", "showOnMap": false, "lon": 9.52, "lat": 47.14}
      {"externalId": "j4", "ownerEmail": "jo@example.com", "firstName": "Jo", "address": {"city": "Prattville", "region": "Alabama", "country": "US"}}

      """)
    let wrong = try runImport(
      [input, "--server", daemon.address, "--password", "wrong"], in: scratch)
    #expect(wrong.status != 0 && wrong.err.contains("WRONGPASS"), "\(wrong.err)")

    let run = try runImport(
      [
        input, "--server", daemon.address, "--password", Daemon.password, "--report",
        scratch.path("report.csv"),
      ], in: scratch)
    #expect(run.status == 0, "\(run.err)")
    let rows = try reportRows(scratch.path("report.csv"))
    #expect(rows.map { $0["status"] } == ["created", "created", "created", "created"])
    #expect(rows[0]["label"] == "Paris, Texas, United States", "\(rows[0])")
    #expect(rows[3]["label"] == "Prattville, Alabama, United States", "\(rows[3])")

    let viewer = try daemon.member()
    let nearParisTX = try viewer.command(
      "CARD.SEARCH", "FROMLONLAT", "-95.55", "33.66", "BYRADIUS", "10", "km")
    #expect(nearParisTX.text.contains("\"firstName\":\"Gus\""), "\(nearParisTX.text)")
    let nearVaduz = try viewer.command(
      "CARD.SEARCH", "FROMLONLAT", "9.52", "47.14", "BYRADIUS", "1", "km")
    #expect(nearVaduz.text.contains("Hal"), "\(nearVaduz.text)")
    #expect(!nearVaduz.text.contains("Ida"), "showOnMap false keeps the card off the map")
    // CARD.IMPORT is the admin's: an account may not run it.
    let refused = try viewer.command("CARD.IMPORT", "x@example.com", "x1", #"{"firstName":"X"}"#)
    #expect(refused.text.hasPrefix("-NOPERM"), "\(refused.text)")
  }

  @Test("unknown columns are refused, naming them, before anything is written")
  func unknownColumnsRefused() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let csv = try scratch.write(
      "bad.csv", "externalId,ownerEmail,firstName,fax,nickname\nx,a@example.com,A,1,B\n")
    let run = try runImport([csv, "--data", scratch.path("var")], in: scratch)
    #expect(run.status == 2)
    #expect(run.err.contains("unknown columns fax, nickname"), "\(run.err)")
    #expect(!FileManager.default.fileExists(atPath: scratch.path("var")))

    // In JSON Lines the unknown name may be on the last line: still nothing is written.
    let jsonl = try scratch.write(
      "bad.jsonl",
      """
      {"externalId": "1", "ownerEmail": "a@example.com", "firstName": "A"}
      {"externalId": "2", "ownerEmail": "b@example.com", "firstName": "B", "fax": "1"}

      """)
    let daemon = try Daemon(data: scratch.path("daemon"), in: scratch)
    defer { daemon.stop() }
    let refused = try runImport(
      [jsonl, "--server", daemon.address, "--password", Daemon.password], in: scratch)
    #expect(refused.status == 2)
    #expect(refused.err.contains("unknown column fax"), "\(refused.err)")
    // No owner was invited: the first line's email is still free.
    let signUp = try RESPConnection(port: daemon.port).command(
      "ACCOUNT.CREATE", "a@example.com", "a long enough password")
    #expect(signUp.text.hasPrefix("$"), "\(signUp.text)")
    let viewer = try daemon.member()
    let found = try viewer.command("CARD.SEARCH", "BOUNDS", "-180", "-85", "180", "85")
    #expect(found.text == "*0\r\n")
  }

  @Test("importing again updates the same cards instead of duplicating them")
  func reimportUpdates() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    // Saved by a spreadsheet: a byte order mark before the header.
    let first = try scratch.write(
      "v1.csv",
      """
      \u{FEFF}externalId,ownerEmail,firstName,company,lon,lat
      a,ann@example.com,Ann,Old Co,9.5,47.1
      b,ben@example.com,Ben,Same Co,9.6,47.2

      """)
    let data = scratch.path("var")
    #expect(try runImport([first, "--data", data], in: scratch).status == 0)
    let before = try CardSet(data: data)
    let second = try scratch.write(
      "v2.csv",
      """
      externalId,ownerEmail,firstName,company,lon,lat
      a,ann@example.com,Ann,New Co,9.5,47.1
      b,ben@example.com,Ben,Same Co,9.6,47.2

      """)
    let run = try runImport(
      [second, "--data", data, "--report", scratch.path("r.csv")], in: scratch)
    #expect(run.status == 0, "\(run.err)")
    #expect(try reportRows(scratch.path("r.csv")).map { $0["status"] } == ["updated", "unchanged"])
    let after = try CardSet(data: data)
    #expect(after.cards.count == 2)
    #expect(after.accounts == before.accounts)
    #expect(after.cards[0].contains("New Co") && !after.cards[0].contains("Old Co"))
    #expect(after.cards[1] == before.cards[1])
  }

  @Test("plan limits apply per owner: rows over the limit fail with LIMIT")
  func limitPerOwner() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let input = try scratch.write(
      "cards.csv",
      """
      externalId,ownerEmail,firstName
      1,kim@example.com,Kim
      2,kim@example.com,Kim Two
      3,lou@example.com,Lou
      4,kim@example.com,Kim Three

      """)
    let run = try runImport(
      [input, "--data", scratch.path("var"), "--report", scratch.path("r.csv")], in: scratch)
    #expect(run.status == 1)
    let rows = try reportRows(scratch.path("r.csv"))
    #expect(rows.map { $0["status"] } == ["created", "failed", "created", "failed"])
    #expect(rows[1]["reason"]?.hasPrefix("LIMIT") == true, "\(rows[1])")
    #expect(rows[3]["reason"]?.hasPrefix("LIMIT") == true)
    #expect(try CardSet(data: scratch.path("var")).cards.count == 2)
  }

  @Test("a match below --min-confidence is flagged low-confidence and its card has no location")
  func lowConfidenceFlagged() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    // Springfield: many towns share the name, so the best one's share is small.
    let input = try scratch.write(
      "cards.csv",
      """
      externalId,ownerEmail,firstName,city
      1,sam@example.com,Sam,Springfield
      2,tia@example.com,Tia,Vaduz

      """)
    let data = scratch.path("var")
    let run = try runImport(
      [input, "--data", data, "--report", scratch.path("r.csv"), "--min-confidence", "0.6"],
      in: scratch)
    #expect(run.status == 0, "flagged rows are not failures: \(run.err)")
    #expect(run.out.contains("1 low-confidence"), "\(run.out)")
    let rows = try reportRows(scratch.path("r.csv"))
    #expect(rows.map { $0["status"] } == ["low-confidence", "created"])
    #expect(rows[0]["label"]?.hasPrefix("Springfield") == true, "the candidate is reported")
    #expect((Double(rows[0]["confidence"] ?? "") ?? 1) < 0.6)
    #expect(rows[0]["reason"]?.contains("imported without a location") == true)
    let cards = try CardSet(data: data).cards
    #expect(cards.count == 2)
    #expect(cards[0].hasPrefix("sam@example.com 1 ") && !cards[0].contains("\"location\""))
    #expect(cards[1].contains("\"source\":\"geocoded\""))
  }
}
