import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// The card designs' rules, through the protocol over real sockets.
@Suite("Cards")
struct CardTests {
  static let ana =
    #"{"firstName":"Ana","lastName":"Lima","company":"Acme","jobTitle":"Engineer","showOnMap":true,"location":{"lon":2.35,"lat":48.85}}"#

  @Test(
    "the first card is primary at /c/<username>; a free account has one card, Pro up to its limit; one more is LIMIT"
  )
  func plansAndPrimary() async throws {
    let server = try await TestDaemon(cards: { $0.proCardLimit = 3 })
    let (c, id, username) = try server.signedIn("ana@x.org")
    let card = try c.object("CARD.CREATE", Self.ana)
    #expect(card["isPrimary"] as? Bool == true && card["isActive"] as? Bool == true)
    #expect(card["url"] as? String == "https://cards.test/c/\(username)")
    #expect((card["code"] as? String)?.count == 8)
    #expect((card["slug"] as? String)?.count == 3)
    #expect(card["ownerId"] as? Int == id && card["firstName"] as? String == "Ana")
    #expect(
      try c.text("CARD.CREATE", #"{"firstName":"Two"}"#).hasPrefix(
        "LIMIT free accounts have 1 card"))

    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    let second = try c.object("CARD.CREATE", #"{"firstName":"Two"}"#)
    #expect(second["isPrimary"] as? Bool == false)
    #expect(
      second["url"] as? String
        == "https://cards.test/c/\(username)/\(second["slug"] as? String ?? "")")
    _ = try c.object("CARD.CREATE", #"{"firstName":"Three"}"#)
    #expect(
      try c.text("CARD.CREATE", #"{"firstName":"Four"}"#)
        == "LIMIT Pro accounts have at most 3 cards")
    #expect(try c.command("CARD.MINE").value.arrayCount == 3)
    await server.stop()
  }

  @Test(
    "only the owner changes or deletes a card; any signed-in account reads it by id or code; nothing changes on a refusal"
  )
  func ownership() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let card = try ana.object("CARD.CREATE", Self.ana)
    let id = "\(card["id"] as? Int ?? 0)"
    let code = card["code"] as? String ?? ""
    for command in [
      ["CARD.UPDATE", id, #"{"firstName":"Mallory"}"#], ["CARD.DEL", id],
      ["CARD.LOCATE", id, "0", "0"], ["CARD.PRIMARY", id],
    ] {
      #expect(try bo.text(command) == "NOPERM the card is not yours", "\(command)")
    }
    #expect(try bo.object("CARD.GET", id)["firstName"] as? String == "Ana")
    #expect(try bo.object("CARD.GET", code)["firstName"] as? String == "Ana")
    #expect(try ana.object("CARD.GET", id)["location"] as? [String: Any] != nil)
    let signedOut = try server.connect()
    #expect(try signedOut.text("CARD.GET", id).hasPrefix("NOAUTH"))
    #expect(try signedOut.text("CARD.CREATE", Self.ana).hasPrefix("NOAUTH"))
    #expect(try ana.text("CARD.GET", "999") == "NOTFOUND no such card")
    await server.stop()
  }

  @Test(
    "when Pro ends, other cards turn inactive: no URL or code, hidden from others and the map, the share URL says so; Pro again brings them back"
  )
  func inactiveCards() async throws {
    let server = try await TestDaemon()
    let (ana, id, username) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object("CARD.CREATE", Self.ana)
    let second = try ana.object(
      "CARD.CREATE",
      #"{"firstName":"Ana","company":"Side","showOnMap":true,"location":{"lon":2.36,"lat":48.86}}"#
    )
    let secondID = "\(second["id"] as? Int ?? 0)"
    let slug = second["slug"] as? String ?? ""
    #expect(
      try bo.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "10", "km").value
        .arrayCount == 2)

    _ = try admin.object("ACCOUNT.PRO", "\(id)", "0")
    let mine = try ana.object("CARD.GET", secondID)
    #expect(mine["isActive"] as? Bool == false && mine["url"] == nil && mine["code"] == nil)
    #expect(try bo.text("CARD.GET", secondID) == "NOTFOUND no such card")
    #expect(try bo.text("CARD.GET", second["code"] as? String ?? "") == "NOTFOUND no such card")
    #expect(
      try bo.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "10", "km").value
        .arrayCount == 1)
    let opened = try bo.object("CARD.OPEN", username, slug)
    #expect(opened["state"] as? String == "inactive")
    #expect(opened["message"] as? String == "This card is no longer active.")
    // Still the owner's to edit.
    #expect(
      try ana.object("CARD.UPDATE", secondID, #"{"jobTitle":"CTO"}"#)["jobTitle"] as? String
        == "CTO")

    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    #expect(try bo.object("CARD.GET", secondID)["isActive"] as? Bool == true)
    #expect(
      try bo.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "10", "km").value
        .arrayCount == 2)
    #expect(try bo.object("CARD.OPEN", username, slug)["state"] as? String == "card")
    await server.stop()
  }

  @Test(
    "deleting the primary card reserves its URL: a placeholder until the next card, which becomes primary there"
  )
  func reservedURL() async throws {
    let server = try await TestDaemon()
    let (ana, _, username) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let card = try ana.object("CARD.CREATE", Self.ana)
    #expect(try bo.object("CARD.OPEN", username)["state"] as? String == "card")
    #expect(try ana.text("CARD.DEL", "\(card["id"] as? Int ?? 0)") == "1")
    #expect(try bo.object("CARD.OPEN", username)["state"] as? String == "placeholder")
    try await server.restart()
    let ana2 = try server.connect()
    #expect(try ana2.text("AUTH", "ana@x.org", "secret1") == "OK")
    let bo2 = try server.connect()
    #expect(try bo2.text("AUTH", "bo@x.org", "secret1") == "OK")
    #expect(try bo2.object("CARD.OPEN", username)["state"] as? String == "placeholder")
    let next = try ana2.object("CARD.CREATE", #"{"firstName":"Ana2"}"#)
    #expect(
      next["isPrimary"] as? Bool == true
        && next["url"] as? String == "https://cards.test/c/\(username)")
    let shown = try bo2.object("CARD.OPEN", username)
    #expect((shown["card"] as? [String: Any])?["firstName"] as? String == "Ana2")
    #expect(try bo2.object("CARD.OPEN", "nobody")["state"] as? String == "notfound")
    await server.stop()
  }

  @Test(
    "a card is on the map only while shown, active and located; CARD.LOCATE moves it; the map survives a restart"
  )
  func mapMembership() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let hidden = try ana.object(
      "CARD.CREATE", #"{"firstName":"Ana","location":{"lon":2.35,"lat":48.85}}"#)
    let id = "\(hidden["id"] as? Int ?? 0)"
    func found() throws -> Int {
      try bo.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "5", "km").value
        .arrayCount
    }
    #expect(try found() == 0, "showOnMap is off")
    _ = try ana.object("CARD.UPDATE", id, #"{"showOnMap":true}"#)
    #expect(try found() == 1)
    _ = try ana.object("CARD.LOCATE", id, "13.40", "52.52")
    #expect(try found() == 0, "moved to Berlin")
    #expect(
      try bo.command("CARD.SEARCH", "FROMLONLAT", "13.4", "52.5", "BYRADIUS", "5", "km").value
        .arrayCount == 1)
    _ = try ana.object("CARD.UPDATE", id, #"{"location":null}"#)
    #expect(
      try bo.command("CARD.SEARCH", "FROMLONLAT", "13.4", "52.5", "BYRADIUS", "5", "km").value
        .arrayCount == 0)
    _ = try ana.object("CARD.LOCATE", id, "13.40", "52.52")
    try await server.restart()
    let c = try server.connect()
    #expect(try c.text("AUTH", "bo@x.org", "secret1") == "OK")
    #expect(
      try c.command("CARD.SEARCH", "FROMLONLAT", "13.4", "52.5", "BYRADIUS", "5", "km").value
        .arrayCount == 1)
    let ana2 = try server.connect()
    #expect(try ana2.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try ana2.text("CARD.LOCATE", id, "200", "0").hasPrefix("INVALID location"))
    await server.stop()
  }

  @Test(
    "bad input: invalid JSON, unknown fields, wrong types, missing first name: the error, and nothing stored"
  )
  func badInput() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    #expect(try ana.text("CARD.CREATE", "{not json").hasPrefix("INVALID json"))
    #expect(try ana.text("CARD.CREATE", #"{"lastName":"x"}"#).hasPrefix("INVALID firstName"))
    #expect(try ana.command("CARD.MINE").value.arrayCount == 0)
    let card = try ana.object("CARD.CREATE", Self.ana)
    let id = "\(card["id"] as? Int ?? 0)"
    #expect(try ana.text("CARD.UPDATE", id, "[1]").hasPrefix("INVALID json"))
    #expect(try ana.text("CARD.UPDATE", id, #"{"firstName":null}"#).hasPrefix("INVALID firstName"))
    #expect(try ana.object("CARD.GET", id)["firstName"] as? String == "Ana")
    await server.stop()
  }
}

extension RESPValue {
  var arrayCount: Int {
    if case .array(let items) = self { return items.count }
    return -1
  }
}
