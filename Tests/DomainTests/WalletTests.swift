import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// The wallet: other people's cards kept by an account, through the protocol over real sockets.
@Suite("Wallet")
struct WalletTests {
  static func card(_ first: String, _ more: String = "") -> String {
    #"{"firstName":"\#(first)"\#(more.isEmpty ? "" : ",")\#(more)}"#
  }

  @Test(
    "WALLET.ADD by share code, by either share URL (trailing slash, query), idempotent; own card refused, inactive refused, unknown NOTFOUND"
  )
  func add() async throws {
    let server = try await TestDaemon()
    let (ana, anaID, username) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let (cy, _, _) = try server.signedIn("cy@x.org")
    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "1")
    let primary = try ana.object("CARD.CREATE", Self.card("Ana", #""company":"Acme""#))
    let second = try ana.object("CARD.CREATE", Self.card("Ana", #""company":"Side""#))
    let (primaryID, secondID) = (primary["id"] as? Int ?? 0, second["id"] as? Int ?? 0)
    let slug = second["slug"] as? String ?? ""

    let added = try bo.object("WALLET.ADD", primary["code"] as? String ?? "")
    #expect(added["id"] as? Int == primaryID && added["company"] as? String == "Acme")
    #expect(added["isActive"] as? Bool == true && added["addedAt"] is String)
    #expect(added["url"] as? String == "https://cards.test/c/\(username)")
    let again = try bo.object("WALLET.ADD", primary["code"] as? String ?? "")
    #expect(
      again["id"] as? Int == primaryID && again["addedAt"] as? String == added["addedAt"] as? String
    )
    #expect(
      try bo.object("WALLET.ADD", "https://cards.test/c/\(username)/\(slug)/?utm=qr")["id"] as? Int
        == secondID)
    #expect(try Self.ids(bo) == [secondID, primaryID])

    for url in [
      "https://cards.test/c/\(username)", "https://cards.test/c/\(username)/",
      "https://cards.test/c/\(username)?from=mail",
    ] {
      #expect(try cy.object("WALLET.ADD", url)["id"] as? Int == primaryID, "\(url)")
    }
    #expect(try Self.ids(cy) == [primaryID])

    #expect(
      try ana.text("WALLET.ADD", primary["code"] as? String ?? "") == "INVALID card: your own card")
    #expect(
      try ana.text("WALLET.ADD", "https://cards.test/c/\(username)")
        == "INVALID card: your own card")
    for unknown in [
      "zzzzzzzz", "https://cards.test/c/nobody", "https://cards.test/c/\(username)/xyz",
      "https://elsewhere.test/c/\(username)", "https://cards.test/c/\(username)/\(slug)/more", "",
    ] {
      #expect(try cy.text("WALLET.ADD", unknown) == "NOTFOUND no such card", "\(unknown)")
    }

    // Pro ends: the second card turns inactive; no one may add it, who holds it sees it inactive.
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "0")
    for codeOrURL in [second["code"] as? String ?? "", "https://cards.test/c/\(username)/\(slug)"] {
      #expect(
        try cy.text("WALLET.ADD", codeOrURL) == "INACTIVE the card is no longer active",
        "\(codeOrURL)")
    }
    let held = try Self.entries(bo, "WALLET.LIST")
    #expect(held.count == 2)
    #expect(Set(held[0].keys) == ["id", "isActive", "addedAt"])
    #expect(held[0]["id"] as? Int == secondID && held[0]["isActive"] as? Bool == false)
    #expect(held[1]["firstName"] as? String == "Ana" && held[1]["isActive"] as? Bool == true)
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "1")
    #expect(try Self.entries(bo, "WALLET.LIST")[0]["company"] as? String == "Side")

    let signedOut = try server.connect()
    for command in [
      ["WALLET.ADD", "x"], ["WALLET.DEL", "1"], ["WALLET.LIST"], ["WALLET.SEARCH", "a"],
    ] {
      #expect(try signedOut.text(command).hasPrefix("NOAUTH"), "\(command)")
    }
    await server.stop()
  }

  @Test("WALLET.DEL removes a held card (:1), then :0; a card not held is :0")
  func delete() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let card = try ana.object("CARD.CREATE", Self.card("Ana"))
    let id = "\(card["id"] as? Int ?? 0)"
    _ = try bo.object("WALLET.ADD", card["code"] as? String ?? "")
    #expect(try bo.text("WALLET.DEL", id) == "1")
    #expect(try bo.text("WALLET.DEL", id) == "0")
    #expect(try bo.text("WALLET.DEL", "999") == "0")
    #expect(try bo.text("WALLET.DEL", "x") == "0")
    #expect(try Self.ids(bo).isEmpty)
    #expect(try bo.command("WALLET.SEARCH", "ana").value.arrayCount == 0)
    // Still the owner's card.
    #expect(try ana.object("CARD.GET", id)["firstName"] as? String == "Ana")
    await server.stop()
  }

  @Test(
    "WALLET.LIST pages newest first and covers every card once, while cards are added and removed between pages"
  )
  func paging() async throws {
    let server = try await TestDaemon(cards: { $0.proCardLimit = 30 })
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    _ = try server.connect().object("ACCOUNT.PRO", "\(anaID)", "1")
    var codes: [(Int, String)] = []
    for i in 0..<30 {
      let card = try ana.object("CARD.CREATE", Self.card("Card\(i)"))
      codes.append((card["id"] as? Int ?? 0, card["code"] as? String ?? ""))
    }
    for (_, code) in codes.prefix(23) { _ = try bo.object("WALLET.ADD", code) }
    let newestFirst = codes.prefix(23).map(\.0).reversed() as [Int]

    for count in [1, 4, 7, 23, 100] {
      var seen: [Int] = []
      var cursor = "0"
      repeat {
        let (next, page) = try Self.page(bo, "WALLET.LIST", "COUNT", "\(count)", "CURSOR", cursor)
        #expect(page.count <= count)
        seen += page.compactMap { $0["id"] as? Int }
        cursor = next
      } while cursor != "0"
      #expect(seen == newestFirst, "COUNT \(count)")
    }
    #expect(try Self.page(bo, "WALLET.LIST").1.count == 20)

    // Between pages: a new card (it goes in front, not in a later page) and a removal of one
    // not yet seen (it is not shown); the rest come once each.
    var (cursor, page) = try Self.page(bo, "WALLET.LIST", "COUNT", "5")
    var seen = page.compactMap { $0["id"] as? Int }
    _ = try bo.object("WALLET.ADD", codes[23].1)
    #expect(try bo.text("WALLET.DEL", "\(newestFirst[10])") == "1")
    #expect(try bo.text("WALLET.DEL", "\(newestFirst[2])") == "1")
    while cursor != "0" {
      (cursor, page) = try Self.page(bo, "WALLET.LIST", "COUNT", "5", "CURSOR", cursor)
      seen += page.compactMap { $0["id"] as? Int }
    }
    #expect(seen == newestFirst.filter { $0 != newestFirst[10] })

    // One reading of a page for both doors (`WalletPage`, issue 39): a count past 1000 is
    // refused as HTTP refuses it, no longer clamped.
    #expect(try bo.text("WALLET.LIST", "COUNT", "0") == "ERR COUNT must be an integer 1 to 1000")
    #expect(try bo.text("WALLET.LIST", "CURSOR", "abc") == "ERR invalid cursor")
    #expect(try bo.text("WALLET.LIST", "COUNT") == "ERR syntax error")
    #expect(try bo.text("WALLET.LIST", "FOO", "1") == "ERR syntax error")
    #expect(
      try bo.text("WALLET.LIST", "COUNT", "9223372036854775807")
        == "ERR COUNT must be an integer 1 to 1000")
    #expect(try bo.command("WALLET.LIST", "COUNT", "1000").value.arrayCount == 2)
    await server.stop()
  }

  @Test(
    "WALLET.SEARCH: each word a prefix, accents and case ignored, best match first, bounded, only the caller's own wallet"
  )
  func search() async throws {
    let server = try await TestDaemon()
    let owners = try (0..<5).map { try server.signedIn("owner\($0)@x.org").0 }
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let (cy, _, _) = try server.signedIn("cy@x.org")
    let jose = try owners[0].object(
      "CARD.CREATE",
      Self.card("José", #""lastName":"Lima","company":"Acme","address":{"city":"Lyon"}"#))
    let ecole = try owners[1].object(
      "CARD.CREATE", Self.card("Marie", #""company":"ecole normale","jobTitle":"Teacher""#))
    let about = try owners[2].object(
      "CARD.CREATE",
      Self.card("Paul", #""aboutMe":"I used to work at Acme","email":"paul@example.org""#))
    let josefina = try owners[3].object("CARD.CREATE", Self.card("Josefina"))
    let other = try owners[4].object("CARD.CREATE", Self.card("Other", #""company":"Acme""#))
    for card in [jose, ecole, about] {
      _ = try bo.object("WALLET.ADD", card["code"] as? String ?? "")
    }
    for card in [josefina, other] { _ = try cy.object("WALLET.ADD", card["code"] as? String ?? "") }
    let (joseID, ecoleID, aboutID) =
      (jose["id"] as? Int ?? 0, ecole["id"] as? Int ?? 0, about["id"] as? Int ?? 0)

    for (text, expected) in [
      ("jos", [joseID]), ("JOS", [joseID]), ("josé", [joseID]), ("JOSE", [joseID]),
      ("ÉCOLE", [ecoleID]), ("Éc norm", [ecoleID]), ("li jo", [joseID]), ("lyo", [joseID]),
      ("teach", [ecoleID]), ("paul@exa", [aboutID]), ("exampl", [aboutID]),
      // The company counts for more than the about text.
      ("acme", [joseID, aboutID]),
      ("josefina", []), ("other", []), ("zzz", []), ("", []), ("  ...  ", []),
      (#"" OR NOT *"#, []), ("jos AND", []),
    ] {
      #expect(
        try Self.entries(bo, "WALLET.SEARCH", text).compactMap { $0["id"] as? Int } == expected,
        "\(text)")
    }
    let found = try Self.entries(bo, "WALLET.SEARCH", "jos")[0]
    #expect(found["firstName"] as? String == "José" && found["company"] as? String == "Acme")
    #expect(
      try Self.entries(cy, "WALLET.SEARCH", "jos").compactMap { $0["id"] as? Int } == [
        josefina["id"] as? Int ?? 0
      ])
    #expect(try Self.entries(cy, "WALLET.SEARCH", "acme").count == 1)
    #expect(try Self.entries(bo, "WALLET.SEARCH", "acme", "COUNT", "1").count == 1)
    #expect(try bo.text("WALLET.SEARCH", "acme", "COUNT", "0") == "ERR COUNT must be > 0")
    #expect(try bo.text("WALLET.SEARCH", "acme", "LIMIT", "1") == "ERR syntax error")
    await server.stop()
  }

  @Test(
    "a held card's update is found by its new text, not the old; a deleted card, and the cards of a deleted account, leave every wallet; an inactive card is never found"
  )
  func followsCards() async throws {
    let server = try await TestDaemon()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let (cy, _, _) = try server.signedIn("cy@x.org")
    let (dan, _, _) = try server.signedIn("dan@x.org")
    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "1")
    let primary = try ana.object("CARD.CREATE", Self.card("José", #""company":"Acme""#))
    let second = try ana.object("CARD.CREATE", Self.card("Side", #""company":"Acme""#))
    let danCard = try dan.object("CARD.CREATE", Self.card("Dan", #""company":"Acme""#))
    let (primaryID, secondID, danID) =
      (primary["id"] as? Int ?? 0, second["id"] as? Int ?? 0, danCard["id"] as? Int ?? 0)
    for holder in [bo, cy] {
      for card in [primary, second, danCard] {
        _ = try holder.object("WALLET.ADD", card["code"] as? String ?? "")
      }
    }

    _ = try ana.object("CARD.UPDATE", "\(primaryID)", #"{"firstName":"Joana","company":null}"#)
    #expect(try Self.searchIDs(bo, "jos").isEmpty)
    #expect(try Self.searchIDs(bo, "joan") == [primaryID])
    #expect(try Self.searchIDs(cy, "acme").sorted() == [secondID, danID].sorted())
    #expect(try Self.entries(bo, "WALLET.LIST")[2]["firstName"] as? String == "Joana")

    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "0")
    #expect(try Self.searchIDs(bo, "side").isEmpty)
    #expect(try Self.ids(bo).contains(secondID))
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "1")
    #expect(try Self.searchIDs(bo, "side") == [secondID])

    #expect(try ana.text("CARD.DEL", "\(secondID)") == "1")
    for holder in [bo, cy] {
      #expect(try Self.ids(holder) == [danID, primaryID])
      #expect(try Self.searchIDs(holder, "side").isEmpty)
      #expect(try holder.text("WALLET.DEL", "\(secondID)") == "0")
    }

    #expect(try ana.text("ACCOUNT.DELETE", "secret1") == "OK")
    for holder in [bo, cy] {
      #expect(try Self.ids(holder) == [danID])
      #expect(try Self.searchIDs(holder, "joan").isEmpty)
    }
    // A deleted holder's wallet goes with its account; the cards it held stay for others.
    #expect(try bo.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try Self.ids(cy) == [danID])
    try await server.restart()
    let cy2 = try server.connect()
    #expect(try cy2.text("AUTH", "cy@x.org", "secret1") == "OK")
    #expect(try Self.ids(cy2) == [danID])
    #expect(try Self.searchIDs(cy2, "acme") == [danID])
    await server.stop()
  }

  @Test("the wallets, their order, their inactive cards and their search survive a restart")
  func restart() async throws {
    let server = try await TestDaemon()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let (cy, _, _) = try server.signedIn("cy@x.org")
    _ = try server.connect().object("ACCOUNT.PRO", "\(anaID)", "1")
    let first = try ana.object("CARD.CREATE", Self.card("Éloïse", #""company":"Acme""#))
    let second = try ana.object("CARD.CREATE", Self.card("Bruno"))
    let cyCard = try cy.object("CARD.CREATE", Self.card("Cyril", #""jobTitle":"Chef""#))
    for card in [first, cyCard, second] {
      _ = try bo.object("WALLET.ADD", card["code"] as? String ?? "")
    }
    _ = try server.connect().object("ACCOUNT.PRO", "\(anaID)", "0")
    let before = try Self.entries(bo, "WALLET.LIST")
    #expect(before.count == 3)

    try await server.restart()
    let c = try server.connect()
    #expect(try c.text("AUTH", "bo@x.org", "secret1") == "OK")
    let after = try Self.entries(c, "WALLET.LIST")
    #expect(after.map { $0["id"] as? Int } == before.map { $0["id"] as? Int })
    #expect(after.map { $0["addedAt"] as? String } == before.map { $0["addedAt"] as? String })
    #expect(after[0]["isActive"] as? Bool == false)
    #expect(try Self.searchIDs(c, "elo") == [first["id"] as? Int ?? 0])
    #expect(try Self.searchIDs(c, "chef") == [cyCard["id"] as? Int ?? 0])
    #expect(try Self.searchIDs(c, "bruno").isEmpty)
    #expect(try c.text("WALLET.DEL", "\(cyCard["id"] as? Int ?? 0)") == "1")
    try await server.restart()
    let c2 = try server.connect()
    #expect(try c2.text("AUTH", "bo@x.org", "secret1") == "OK")
    #expect(try Self.ids(c2) == [second["id"] as? Int ?? 0, first["id"] as? Int ?? 0])
    #expect(try Self.searchIDs(c2, "chef").isEmpty)
    await server.stop()
  }

  // MARK: Helpers

  static func entries(_ c: RESPConnection, _ arguments: String...) throws -> [[String: Any]] {
    var value = try c.command(arguments).value
    if arguments[0] == "WALLET.LIST", case .array(let pair) = value, pair.count == 2 {
      value = pair[1]
    }
    return objects(value)
  }

  static func objects(_ value: RESPValue) -> [[String: Any]] {
    guard case .array(let items) = value else { return [] }
    return items.compactMap { item in
      guard case .bulkString(let b) = item else { return nil }
      return try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8)) as? [String: Any]
    }
  }

  /// One page: the next cursor and the entries.
  static func page(_ c: RESPConnection, _ arguments: String...) throws -> (String, [[String: Any]])
  {
    guard case .array(let pair) = try c.command(arguments).value, pair.count == 2,
      case .bulkString(let next) = pair[0]
    else { throw RESPConnection.Failed(description: "not a page") }
    return (String(buffer: next), objects(pair[1]))
  }

  /// Every held card's id, newest first.
  static func ids(_ c: RESPConnection) throws -> [Int] {
    try entries(c, "WALLET.LIST", "COUNT", "1000").compactMap { $0["id"] as? Int }
  }

  static func searchIDs(_ c: RESPConnection, _ text: String) throws -> [Int] {
    try entries(c, "WALLET.SEARCH", text, "COUNT", "100").compactMap { $0["id"] as? Int }
  }
}
