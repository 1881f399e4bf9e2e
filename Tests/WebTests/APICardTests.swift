import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// The signed-in API (`/v1/cards/mine`, `/v1/cards/{id}`, `/v1/wallet`) over real HTTP with a
/// session token, against CARD.* and WALLET.* over RESP on the same server.
@Suite("HTTP API: cards and wallet")
struct APICardTests {
  static let ana =
    #"{"firstName":"Ana","company":"Acme","showOnMap":true,"location":{"lon":2.35,"lat":48.85}}"#

  @Test("a card's round trip with a token: create, read, list, patch, delete, as CARD.* sees it")
  func roundTrip() async throws {
    try await TestDaemon.with { servers in
      let (resp, id, username, token) = try servers.member("ana@x.org")
      let created = try await servers.send("POST", "/v1/cards/mine", token: token, json: Self.ana)
      #expect(created.status == 201)
      #expect(created.header("Content-Type") == "application/json")
      let card = created.object
      let cardId = try #require(card["id"] as? Int)
      #expect(created.header("Location") == "/v1/cards/\(cardId)")
      #expect(card["ownerId"] as? Int == id && card["firstName"] as? String == "Ana")
      #expect(card["url"] as? String == "\(TestDaemon.publicURL)/c/\(username)")

      // The same JSON as CARD.GET, byte for byte, and the same list as CARD.MINE.
      let got = try await servers.get(
        "/v1/cards/\(cardId)", headers: ["Authorization": "Bearer \(token)"])
      #expect(got.status == 200)
      #expect(got.text == (try resp.text("CARD.GET", "\(cardId)")))
      let byCode = try await servers.get(
        "/v1/cards/\(card["code"] as? String ?? "")", headers: ["Authorization": "Bearer \(token)"])
      #expect(byCode.text == got.text)
      let mine = try await servers.send("GET", "/v1/cards/mine", token: token)
      #expect(mine.array.count == 1 && mine.array.first?["id"] as? Int == cardId)
      #expect(mine.text == "[" + (try resp.text("CARD.GET", "\(cardId)")) + "]")

      let patched = try await servers.send(
        "PATCH", "/v1/cards/\(cardId)", token: token, json: #"{"jobTitle":"CTO","company":null}"#)
      #expect(patched.status == 200)
      #expect(patched.object["jobTitle"] as? String == "CTO" && patched.object["company"] == nil)
      #expect(try resp.object("CARD.GET", "\(cardId)")["jobTitle"] as? String == "CTO")

      let deleted = try await servers.send("DELETE", "/v1/cards/\(cardId)", token: token)
      #expect(deleted.status == 204 && deleted.body.isEmpty)
      let gone = try await servers.send("GET", "/v1/cards/\(cardId)", token: token)
      #expect(gone.status == 404 && gone.error == "NOTFOUND no such card")
      #expect(try resp.text("CARD.GET", "\(cardId)") == "NOTFOUND no such card")
    }
  }

  @Test(
    "401 without or with a bad token; 400 for invalid JSON; 413 past the body limit; 403 at the plan's limit; nothing stored"
  )
  func refusals() async throws {
    try await TestDaemon.with { servers in
      let (resp, _, _, token) = try servers.member("ana@x.org")
      for (method, path) in [
        ("GET", "/v1/cards/mine"), ("POST", "/v1/cards/mine"), ("GET", "/v1/cards/1"),
        ("PATCH", "/v1/cards/1"), ("DELETE", "/v1/cards/1"), ("GET", "/v1/wallet"),
        ("POST", "/v1/wallet"), ("DELETE", "/v1/wallet/1"),
      ] {
        for bad in [nil, "not-a-token"] {
          let fetched = try await servers.send(method, path, token: bad, json: "{}")
          #expect(fetched.status == 401, "\(method) \(path)")
          #expect(fetched.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
          #expect(fetched.error?.hasPrefix("NOAUTH") == true)
        }
      }
      let notJSON = try await servers.send("POST", "/v1/cards/mine", token: token, json: "{oops")
      #expect(notJSON.status == 400 && notJSON.error != nil)
      let noName = try await servers.send("POST", "/v1/cards/mine", token: token, json: "{}")
      #expect(noName.status == 400)
      let huge = String(repeating: "x", count: 100_000)
      let tooLarge = try await servers.send(
        "POST", "/v1/cards/mine", token: token, json: #"{"firstName":"\#(huge)"}"#)
      #expect(tooLarge.status == 413 && tooLarge.error != nil)
      #expect(try resp.command("CARD.MINE").value.elements.isEmpty)

      let first = try await servers.send("POST", "/v1/cards/mine", token: token, json: Self.ana)
      #expect(first.status == 201)
      let second = try await servers.send("POST", "/v1/cards/mine", token: token, json: Self.ana)
      #expect(second.status == 403)
      #expect(second.error == (try resp.text("CARD.CREATE", Self.ana)))
      #expect(second.error?.hasPrefix("LIMIT") == true)
      #expect(try resp.command("CARD.MINE").value.elements.count == 1)
    }
  }

  @Test(
    "others' cards: 403 to change an active one, 404 for an inactive or missing one, or one off the map asked by id, never its content"
  )
  func othersCards() async throws {
    try await TestDaemon.with { servers in
      let admin = try servers.connect()
      let (owner, ownerId, _, _) = try servers.member("owner@x.org")
      _ = try admin.object("ACCOUNT.PRO", "\(ownerId)", "1")
      let active = try owner.object("CARD.CREATE", Self.ana)["id"] as! Int
      let inactive = try owner.object("CARD.CREATE", #"{"firstName":"Secret"}"#)["id"] as! Int
      _ = try admin.object("ACCOUNT.PRO", "\(ownerId)", "0")
      let (_, _, _, token) = try servers.member("other@x.org")

      let seen = try await servers.send("GET", "/v1/cards/\(active)", token: token)
      #expect(seen.status == 200 && seen.object["firstName"] as? String == "Ana")
      for method in ["PATCH", "DELETE"] {
        let refused = try await servers.send(
          method, "/v1/cards/\(active)", token: token, json: #"{"firstName":"Eve"}"#)
        #expect(refused.status == 403 && refused.error == "NOPERM the card is not yours")
      }
      for id in ["\(inactive)", "999999", "nope"] {
        for method in ["GET", "PATCH", "DELETE"] {
          let hidden = try await servers.send(
            method, "/v1/cards/\(id)", token: token, json: #"{"firstName":"Eve"}"#)
          #expect(
            hidden.status == 404 && hidden.error == "NOTFOUND no such card", "\(method) \(id)")
          #expect(!hidden.text.contains("Secret"))
        }
      }
      #expect(try owner.object("CARD.GET", "\(active)")["firstName"] as? String == "Ana")
      #expect(try owner.object("CARD.GET", "\(inactive)")["firstName"] as? String == "Secret")

      // A card kept off the map: not by its id (ids are sequential), by its code without where.
      let (zed, _, _, _) = try servers.member("zed@x.org")
      let offMap = try zed.object(
        "CARD.CREATE", #"{"firstName":"Zed","location":{"lon":2.35,"lat":48.85}}"#)
      let byID = try await servers.send("GET", "/v1/cards/\(offMap["id"] as! Int)", token: token)
      #expect(byID.status == 404 && !byID.text.contains("Zed"))
      let byCode = try await servers.send(
        "GET", "/v1/cards/\(offMap["code"] as! String)", token: token)
      #expect(byCode.status == 200 && byCode.object["firstName"] as? String == "Zed")
      #expect(byCode.object["location"] == nil, "\(byCode.text)")
    }
  }

  @Test(
    "the wallet: add by code or URL, list as WALLET.LIST, remove; own, inactive and unknown cards refused"
  )
  func wallet() async throws {
    try await TestDaemon.with { servers in
      let (owner, _, _, _) = try servers.member("owner@x.org")
      let card = try owner.object("CARD.CREATE", Self.ana)
      let (resp, _, _, token) = try servers.member("holder@x.org")
      let (code, url) = (card["code"] as! String, card["url"] as! String)

      let added = try await servers.send(
        "POST", "/v1/wallet", token: token, json: #"{"card":"\#(code)"}"#)
      #expect(added.status == 200 && added.object["id"] as? Int == card["id"] as? Int)
      #expect(added.object["addedAt"] != nil)
      let again = try await servers.send(
        "POST", "/v1/wallet", token: token, json: #"{"card":"\#(url)"}"#)
      #expect(again.status == 200 && again.text == added.text)

      let listed = try await servers.send("GET", "/v1/wallet?count=5", token: token)
      #expect(listed.status == 200)
      let page = try resp.command("WALLET.LIST", "COUNT", "5").value.elements
      let respCards = page.last?.elements.compactMap(\.string) ?? []
      let cards = try #require(listed.object["cards"] as? [[String: Any]])
      #expect(cards.count == 1 && respCards.count == 1)
      #expect(CardJSONText.of(cards[0]) == respCards.first.map(CardJSONText.reparsed))
      #expect(listed.object["next"] is NSNull)

      for (body, status) in [
        (#"{"card":"nosuchcode"}"#, 404), (#"{"code":"x"}"#, 400), ("[1]", 400), ("{", 400),
      ] {
        let refused = try await servers.send("POST", "/v1/wallet", token: token, json: body)
        #expect(refused.status == status, "\(body)")
      }
      let ownerToken = try owner.text("SESSION.OPEN", "owner@x.org", "secret1")
      let own = try await servers.send(
        "POST", "/v1/wallet", token: ownerToken, json: #"{"card":"\#(code)"}"#)
      #expect(own.status == 409 && own.error == "INVALID card: your own card")
      for query in ["count=0", "count=1001", "count=x", "cursor=bad"] {
        #expect(try await servers.send("GET", "/v1/wallet?\(query)", token: token).status == 400)
      }
      // A page is read once, in the domain (`WalletPage`): both doors refuse alike, in the same
      // words, and take cursor 0 as the newest.
      for (name, value) in [("count", "0"), ("count", "1001"), ("count", "x"), ("cursor", "bad")] {
        let http = try await servers.send("GET", "/v1/wallet?\(name)=\(value)", token: token)
        let line = try resp.command("WALLET.LIST", name.uppercased(), value).text
        #expect(line == "-\(http.error ?? "")\r\n", "\(name) \(value): \(line)")
      }
      let first = try await servers.send("GET", "/v1/wallet?cursor=0", token: token)
      #expect(first.status == 200 && (first.object["cards"] as? [Any])?.count == 1)

      let removed = try await servers.send("DELETE", "/v1/wallet/\(card["id"]!)", token: token)
      #expect(removed.status == 204)
      let notHeld = try await servers.send("DELETE", "/v1/wallet/\(card["id"]!)", token: token)
      #expect(notHeld.status == 404)
      #expect(try resp.command("WALLET.LIST").value.elements.last?.elements.isEmpty == true)
    }
  }
}

/// JSON compared as objects, whatever the key order or number spelling.
enum CardJSONText {
  static func of(_ object: Any) -> String {
    String(
      decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        ?? Data(),
      as: UTF8.self)
  }

  static func reparsed(_ text: String) -> String {
    of((try? JSONSerialization.jsonObject(with: Data(text.utf8))) ?? [:])
  }
}
