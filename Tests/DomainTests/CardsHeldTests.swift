import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// The cards kept as held at a clean stop and read back by the next start (`Cards.keepHeld`,
/// docs/STORE.md "The cards' held file"): the start answers as one that read every row.
@Suite("Cards held across a clean stop", .disabled(if: TestDaemon.overPostgres))
struct CardsHeldTests {
  static let emails = ["ana@x.org", "bo@x.org", "cy@x.org", "dee@x.org"]

  /// Cards of every kind: on the map or not, primary or not, inactive (Pro ended), a deleted
  /// primary's reserved URL, imported ones with external ids.
  static func populate(_ server: TestDaemon) throws -> [(id: Int, username: String)] {
    let admin = try server.connect()
    let people = try emails.map { email in
      let (c, id, username) = try server.signedIn(email)
      return (c, id, username)
    }
    let (ana, bo, cy, dee) = (people[0].0, people[1].0, people[2].0, people[3].0)
    for person in [people[0], people[3]] {
      _ = try admin.object("ACCOUNT.PRO", "\(person.1)", "1")
    }
    for i in 0..<8 {
      let lon = 2.3 + Double(i * 37 % 100) / 1_000
      let lat = 48.8 + Double(i * 53 % 100) / 1_000
      let reply = try ana.command(
        "CARD.CREATE",
        #"{"firstName":"Ana\#(i)","company":"\#(i % 2 == 0 ? "Acme" : "Émile & Co")","jobTitle":"Engineer","showOnMap":\#(i != 3),"location":{"lon":\#(lon),"lat":\#(lat)},"address":{"city":"Paris"}}"#
      )
      #expect(reply.text.hasPrefix("$"), "\(reply.text)")
    }
    _ = try ana.object("CARD.PRIMARY", "3")
    let boCard = try bo.object("CARD.CREATE", #"{"firstName":"Bo","showOnMap":true}"#)
    _ = try bo.command("CARD.DEL", "\(boCard["id"] as? Int ?? 0)")
    _ = try cy.object(
      "CARD.CREATE", #"{"firstName":"Cy","showOnMap":true,"location":{"lon":2.31,"lat":48.81}}"#)
    for i in 0..<3 {
      _ = try dee.object(
        "CARD.CREATE",
        #"{"firstName":"Dee\#(i)","showOnMap":true,"location":{"lon":2.32,"lat":48.8\#(i)}}"#)
    }
    _ = try admin.object("ACCOUNT.PRO", "\(people[3].1)", "0")
    for i in 0..<3 {
      _ = try admin.command(
        "CARD.IMPORT", "imported\(i)@x.org", "row-\(i)",
        #"{"firstName":"Imported\#(i)","showOnMap":true,"location":{"lon":2.33,"lat":48.8\#(i)}}"#)
    }
    return people.map { ($0.1, $0.2) }
  }

  /// Every reply the held state shapes, as the bytes that arrived.
  static func observe(
    _ server: TestDaemon, _ people: [(id: Int, username: String)], anasCards: Int = 8
  ) throws -> [String] {
    var replies: [String] = []
    let admin = try server.connect()
    let connections = try emails.map { email in
      let c = try server.connect()
      #expect(try c.text("AUTH", email, "secret1") == "OK")
      return c
    }
    for c in connections {
      replies.append(try c.command("CARD.MINE").text)
      for id in 1...25 { replies.append(try c.command("CARD.GET", "\(id)").text) }
    }
    let codes = try PeopleTests.list(connections[0], "CARD.MINE").compactMap {
      $0["code"] as? String
    }
    #expect(codes.count == anasCards)
    for code in codes { replies.append(try connections[1].command("CARD.GET", code).text) }
    for person in people {
      replies.append(try connections[2].command("CARD.OPEN", person.username).text)
    }
    for query in [
      ["FROMLONLAT", "2.35", "48.85", "BYRADIUS", "50", "km", "WITHDIST", "WITHCOORD"],
      ["FROMLONLAT", "2.35", "48.85", "NEAREST", "5", "FILTER", "company", "emile & co"],
      ["FROMLONLAT", "2.35", "48.85", "BYRADIUS", "50", "km", "FILTER", "company", "ACME"],
      ["BOUNDS", "2", "48", "3", "49"],
    ] {
      replies.append(try connections[0].command(["CARD.SEARCH"] + query).text)
    }
    replies.append(try connections[0].command("CARD.CLUSTERS", "2", "48", "3", "49", "10").text)
    for i in 0..<3 {
      replies.append(
        try admin.command(
          "CARD.IMPORT", "imported\(i)@x.org", "row-\(i)",
          #"{"firstName":"Imported\#(i)","showOnMap":true,"location":{"lon":2.33,"lat":48.8\#(i)}}"#
        ).text)
    }
    return replies
  }

  @Test(
    "a clean restart reads the cards from the held file and answers as before: cards by id and by code, share URLs (primary, reserved, inactive), searches, filters and clusters, imports by external id; new cards follow on; a restart after changes holds them"
  )
  func restartFromHeld() async throws {
    let server = try await TestDaemon()
    #expect(server.daemon.domain.cards.loadedFromHeld == false)
    let people = try Self.populate(server)
    let before = try Self.observe(server, people)
    try await server.restart()
    #expect(server.daemon.domain.cards.loadedFromHeld)
    let after = try Self.observe(server, people)
    #expect(after.count == before.count)
    for (a, b) in zip(after, before) { #expect(a == b) }

    // Writes after a start from the file, then another clean restart.
    let (ana, _, _) = try server.signedIn("eve@x.org")
    let made = try ana.object(
      "CARD.CREATE", #"{"firstName":"Eve","showOnMap":true,"location":{"lon":2.34,"lat":48.84}}"#)
    // Ana's 8, Bo's deleted one, Cy's, Dee's 3, 3 imported: 16.
    #expect(made["id"] as? Int == 17)
    let bo = try server.connect()
    #expect(try bo.text("AUTH", "ana@x.org", "secret1") == "OK")
    _ = try bo.object("CARD.UPDATE", "2", #"{"company":"Renamed"}"#)
    _ = try bo.command("CARD.DEL", "5")
    let changed = try Self.observe(server, people, anasCards: 7)
    #expect(changed != after)
    try await server.restart()
    #expect(server.daemon.domain.cards.loadedFromHeld)
    #expect(try Self.observe(server, people, anasCards: 7) == changed)
    await server.stop()
  }

  @Test(
    "the start reads the rows instead when the store was written while stopped (sqlite3 editing a card, as a GIS tool could), and when the public URL changed; both answer as the rows say"
  )
  func rowsWhenTheFileCannotBeTrusted() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", CardTests.ana)
    try await server.restart {
      let script = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.execute("UPDATE cards SET fields = json_set(fields, '$.company', 'Edited')")
        db.commit()
        """
      _ = try RedisProcess.run("python3", ["-c", script, server.directory + "/cardatlas.sqlite"])
    }
    #expect(server.daemon.domain.cards.loadedFromHeld == false)
    let c = try server.connect()
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try c.object("CARD.GET", "1")["company"] as? String == "Edited")
    await server.daemon.stop()

    // The same store under another public URL: summaries name the URL.
    let moved = try await TestDaemon(
      cards: { $0.publicURL = "https://moved.test" }, directory: server.directory)
    #expect(moved.daemon.domain.cards.loadedFromHeld == false)
    let d = try moved.connect()
    #expect(try d.text("AUTH", "ana@x.org", "secret1") == "OK")
    let hits = try d.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "1", "km")
    #expect(hits.text.contains("https://moved.test/c/"))
    await moved.stop()
  }
}
