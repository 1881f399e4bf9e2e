import Accounts
import Cards
import Foundation
import GRDB
import RESP
import RedisTestSupport
import SQLiteDomainStorage
import Testing

/// `cardatlas import --data` writes through `CardBulkImport` (the rules applied to what the
/// store holds, nothing held in memory) and `--server` through the daemon's domain: the same
/// rows must give the same cards, accounts and report either way, and a daemon started on the
/// directory afterwards must serve them.
@Suite("cardatlas import --data, the bulk path", .serialized)
struct BulkImportTests {
  /// Every rule an import row meets: a Pro owner's limit (its email in another case), a free
  /// owner's, an owner whose primary card was deleted (its URL reserved), invited owners, an
  /// update and an unchanged row by external id, refused rows that invite no one, and one
  /// external id for two owners.
  static func rows() -> String {
    var text = "externalId,ownerEmail,firstName,company,lon,lat\n"
    for i in 1...11 {
      let owner = i % 2 == 0 ? "PRO@Example.com" : "pro@example.com"
      text += "p\(i),\(owner),Pro \(i),Pro Co,9.5\(i % 10),47.1\(i % 10)\n"
    }
    text += """
      r1,res@example.com,Res Again,,9.52,47.14
      h1,has@example.com,Has Two,,,
      n1,new1@example.com,New,Old Co,9.53,47.15
      n2,new1@example.com,New Two,,,
      n1,NEW1@example.com,New,Changed Co,9.53,47.15
      n1,new1@example.com,New,Changed Co,9.53,47.15
      x1,not-an-email,X,,,
      y1,yan@example.com,,NoName,,
      \(String(repeating: "x", count: 201)),zed@example.com,Zed,,,
      s1,same@example.com,Same,,9.54,47.16
      s1,other@example.com,Other,,9.55,47.17

      """
    return text
  }

  /// A directory a daemon left: a Pro account, one whose primary card was deleted, and one
  /// with a card already.
  static func base(_ scratch: Scratch) throws -> String {
    let data = scratch.path("base")
    let daemon = try Daemon(data: data, in: scratch)
    defer { daemon.stop() }
    let pro = try RESPConnection(port: daemon.port).signUp("pro@example.com")
    #expect(try daemon.admin().text("ACCOUNT.PRO", String(pro.id), "1").contains("\"isPro\":true"))
    let res = try RESPConnection(port: daemon.port)
    _ = try res.signUp("res@example.com")
    let made = try res.object("CARD.CREATE", #"{"firstName":"Res"}"#)
    #expect(try res.text("CARD.DEL", "\(made["id"] as? Int ?? 0)") == "1")
    let has = try RESPConnection(port: daemon.port)
    _ = try has.signUp("has@example.com")
    _ = try has.object("CARD.CREATE", #"{"firstName":"Has"}"#)
    return data
  }

  /// Cards whose location is not in the spatial index GIS tools read (`idx_cards_geom`, kept
  /// by cards-v3's triggers), plus entries of cards without one.
  static func misindexed(_ data: String) throws -> Int {
    try DatabaseQueue(path: data + "/cardatlas.sqlite").read { db in
      let lon = "json_extract(c.fields, '$.location.lon')"
      let lat = "json_extract(c.fields, '$.location.lat')"
      return try Int.fetchOne(
        db,
        sql: """
          SELECT (SELECT count(*) FROM cards c WHERE \(lon) IS NOT NULL AND NOT EXISTS (
              SELECT 1 FROM idx_cards_geom i WHERE i.pkid = c.id
                AND i.xmin <= \(lon) AND i.xmax >= \(lon) AND i.ymin <= \(lat) AND i.ymax >= \(lat)))
            + (SELECT count(*) FROM idx_cards_geom i WHERE NOT EXISTS (
              SELECT 1 FROM cards c WHERE c.id = i.pkid AND \(lon) IS NOT NULL))
          """) ?? -1
    }
  }

  static func copy(_ from: String, _ to: String) throws -> String {
    try FileManager.default.copyItem(atPath: from, toPath: to)
    return to
  }

  @Test("the same rows give the same cards, accounts and report as the daemon's domain does")
  func sameAsTheDomain() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let input = try scratch.write("rows.csv", Self.rows())
    let base = try Self.base(scratch)
    let viaDaemon = try Self.copy(base, scratch.path("via-daemon"))
    let direct = try Self.copy(base, scratch.path("direct"))

    let daemon = try Daemon(data: viaDaemon, in: scratch)
    let served = try runImport(
      [
        input, "--server", daemon.address, "--password", Daemon.password, "--report",
        scratch.path("served.csv"), "--checkpoint", scratch.path("served.checkpoint"),
      ], in: scratch)
    daemon.stop()
    #expect(served.status == 1, "\(served.err)")
    let run = try runImport(
      [input, "--data", direct, "--report", scratch.path("direct.csv")], in: scratch)
    #expect(run.status == 1, "\(run.err)")

    let report = try reportRows(scratch.path("direct.csv"))
    let reference = try reportRows(scratch.path("served.csv"))
    #expect(report.map { $0["status"] } == reference.map { $0["status"] })
    #expect(report.map { $0["reason"] } == reference.map { $0["reason"] })
    #expect(
      report.map { $0["status"] ?? "" } == Array(repeating: "created", count: 10) + [
        "failed", "created", "failed", "created", "failed", "updated", "unchanged", "failed",
        "failed", "failed", "created", "created",
      ])
    #expect(report[10]["reason"] == "LIMIT Pro accounts have at most 10 cards")
    #expect(report[12]["reason"] == "LIMIT free accounts have 1 card; Pro accounts have more")
    #expect(report[14]["reason"] == "LIMIT free accounts have 1 card; Pro accounts have more")
    #expect(report[17]["reason"] == "INVALID ownerEmail: not an email address")
    #expect(report[18]["reason"] == "INVALID firstName: required")
    #expect(report[19]["reason"]?.hasPrefix("INVALID externalId:") == true)

    let cards = try CardSet(data: direct)
    let referenceCards = try CardSet(data: viaDaemon)
    #expect(cards == referenceCards)
    #expect(cards.cards.filter { $0.hasPrefix("pro@example.com p") }.count == 10)
    #expect(
      cards.cards.contains { $0.hasPrefix("new1@example.com n1 1 ") && $0.contains("Changed Co") })
    #expect(cards.accounts.contains("new1@example.com 1"), "invited: no password")
    #expect(cards.accounts.contains("pro@example.com 0"), "the Pro owner was not invited again")
    #expect(!cards.accounts.contains { $0.hasPrefix("yan@") || $0.hasPrefix("zed@") })
    #expect(!cards.accounts.contains { $0.hasPrefix("not-an-email") })

    // One primary card per owner, slugs unique per owner, the reserved URL taken.
    let queue = try DatabaseQueue(path: direct + "/cardatlas.sqlite")
    let (badOwners, reserved) = try queue.read { db in
      (
        try Int.fetchOne(
          db,
          sql: """
            SELECT count(*) FROM (SELECT owner_id FROM cards GROUP BY owner_id
              HAVING sum(is_primary) != 1 OR count(DISTINCT slug) != count(*))
            """),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM card_reserved_urls")
      )
    }
    #expect(badOwners == 0 && reserved == 0)
    #expect(try Self.misindexed(direct) == 0)
    let resUsername = try queue.read { db in
      try Int64.fetchOne(db, sql: "SELECT id FROM accounts WHERE email = 'res@example.com'")
        .map(try SQLiteAccounts.usernames(db).text)
    }

    let started = try Daemon(data: direct, in: scratch)
    defer { started.stop() }
    let viewer = try started.member()
    let near = try viewer.command(
      "CARD.SEARCH", "FROMLONLAT", "9.53", "47.15", "BYRADIUS", "100", "km", "COUNT", "100")
    for name in ["Res Again", "Pro 10", "Pro 1\"", "Same", "Other"] {
      #expect(near.text.contains("\"firstName\":\"\(name)"), "\(name): \(near.text)")
    }
    #expect(near.text.contains("Changed Co") && !near.text.contains("Old Co"))
    let opened = try viewer.text("CARD.OPEN", resUsername ?? "")
    #expect(opened.contains("\"state\":\"card\"") && opened.contains("Res Again"), "\(opened)")
    // Ids go on after the imported ones: a new account and its card.
    let after = try RESPConnection(port: started.port)
    _ = try after.signUp("after@example.com")
    let card = try after.object("CARD.CREATE", #"{"firstName":"After"}"#)
    #expect(card["isPrimary"] as? Bool == true, "\(card)")
  }

  @Test("a re-imported card held in wallets is searched by its new text")
  func walletsFollowAnUpdate() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let data = scratch.path("var")
    let first = try scratch.write(
      "v1.csv", "externalId,ownerEmail,firstName,company\nw1,wen@example.com,Wen,Oldfirm\n")
    // The second import gives the card a location: the spatial index follows the update.
    #expect(try runImport([first, "--data", data], in: scratch).status == 0)
    let code = try DatabaseQueue(path: data + "/cardatlas.sqlite").read { db in
      try Int64.fetchOne(db, sql: "SELECT id FROM cards WHERE external_id = 'w1'")
        .map(try SQLiteCards.codes(db).text)
    }
    do {
      let daemon = try Daemon(data: data, in: scratch)
      defer { daemon.stop() }
      let holder = try daemon.member("holder@example.com")
      #expect(!(try holder.text("WALLET.ADD", code ?? "")).hasPrefix("INVALID"))
      #expect(try holder.command("WALLET.SEARCH", "Oldfirm").text.contains("Wen"))
    }
    let second = try scratch.write(
      "v2.csv",
      "externalId,ownerEmail,firstName,company,lon,lat\nw1,wen@example.com,Wen,Newfirm,9.6,47.2\n")
    let run = try runImport(
      [second, "--data", data, "--report", scratch.path("r.csv")], in: scratch)
    #expect(run.status == 0, "\(run.err)")
    #expect(try reportRows(scratch.path("r.csv")).map { $0["status"] } == ["updated"])
    #expect(try Self.misindexed(data) == 0)
    let daemon = try Daemon(data: data, in: scratch)
    defer { daemon.stop() }
    let holder = try RESPConnection(port: daemon.port)
    let opened = try holder.command(
      "SESSION.OPEN", "holder@example.com", "a long viewer password")
    #expect(!opened.text.hasPrefix("-"), "\(opened.text)")
    #expect(try holder.command("WALLET.SEARCH", "Newfirm").text.contains("Wen"))
    #expect(try holder.command("WALLET.SEARCH", "Oldfirm").text == "*0\r\n")
  }
}
