import Crypto
import DaemonTestSupport
import Foundation
import RedisTestSupport
import Testing

/// The card pages over real HTTP, beside RESP on the same domain objects.
@Suite("Card pages")
struct CardPageTests {
  /// Every kind of field, with hostile and quoted values where text goes.
  static let full = #"""
    {"firstName":"<script>alert(1)</script>","middleName":"Ann","lastName":"O'Brien \"Q\"",
    "prefix":"Dr.","credentials":"PhD","pronouns":"she/her","jobTitle":"Chief <b>Engineer</b>",
    "company":"Acme, Inc; Labs","description":"Maps & more","phoneNumber":"+33 6 12 34 56 78",
    "secondaryPhone":"(555) 123-4567","email":"zoe@example.org",
    "aboutMe":"Line one\nLine two","customMessageHeader":"Hello there",
    "customMessage":"Thanks for scanning","address":{"street":"1 Rue de Rivoli",
    "city":"Paris","postcode":"75001","country":"France"},"location":{"lon":2.35,"lat":48.85},
    "linkedIn":"zoe-obrien","twitter":"@zoe_maps","instagramUrl":"https://instagram.com/zoe",
    "webLinks":[{"url":"https://zoe.example/portfolio?a=1&b=2","displayText":"Portfolio"}],
    "cvUrl":"https://zoe.example/cv.pdf","cvHeader":"Résumé","cvDisplayText":"Get my CV",
    "imageUrl":"https://cards.test/img/pic1","logoUrl":"https://elsewhere.example/logo.png"}
    """#

  @Test(
    "a full card's page: every field escaped, working tel:, mailto:, social, web, CV and vCard links, a strict CSP, nosniff"
  )
  func fullCard() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object("CARD.CREATE", Self.full)

    let page = try await servers.get("/c/\(username)")
    #expect(page.status == 200)
    #expect(page.header("Content-Type") == "text/html; charset=utf-8")
    #expect(page.header("X-Content-Type-Options") == "nosniff")
    let csp = try #require(page.header("Content-Security-Policy"))
    #expect(csp.hasPrefix("default-src 'none'; style-src 'sha256-"))
    #expect(csp.contains("img-src 'self'") && csp.contains("frame-ancestors 'none'"))
    // Scripts from this server only, never inline: the page's one script is its share button's.
    #expect(csp.contains("; script-src 'self';") && !csp.contains("unsafe-"))
    let html = page.text
    #expect(Self.all(html, "<script").count == 1)
    #expect(html.contains(#"<script src="/static/card.js" defer></script>"#))

    // The one style sheet is the one the CSP's hash allows.
    let style = try #require(Self.between(html, "<style>", "</style>"))
    let digest = Data(SHA256.hash(data: Data(style.utf8))).base64EncodedString()
    #expect(csp.contains("style-src 'sha256-\(digest)'"))
    #expect(style.contains("prefers-color-scheme:dark") && style.contains("border-radius:50%"))

    // Text, never markup; quotes escaped inside attributes too.
    #expect(!html.contains("<script>") && !html.contains("<b>"))
    #expect(
      html.contains("Dr. &lt;script&gt;alert(1)&lt;/script&gt; Ann O&#39;Brien &quot;Q&quot;, PhD"))
    #expect(
      html.contains(
        "alt=\"Dr. &lt;script&gt;alert(1)&lt;/script&gt; Ann O&#39;Brien &quot;Q&quot;, PhD\""))
    #expect(html.contains("Chief &lt;b&gt;Engineer&lt;/b&gt; · Acme, Inc; Labs"))
    #expect(html.contains("Maps &amp; more") && html.contains("she/her"))

    // Links that work.
    #expect(html.contains(#"href="tel:+33612345678""#))
    #expect(html.contains(#"href="tel:5551234567""#))
    #expect(html.contains(#"href="mailto:zoe@example.org""#))
    #expect(html.contains(#"href="https://www.linkedin.com/in/zoe-obrien""#))
    #expect(html.contains(#"href="https://x.com/zoe_maps""#))
    #expect(html.contains(#"href="https://instagram.com/zoe""#))
    #expect(
      html.contains(
        #"href="https://zoe.example/portfolio?a=1&amp;b=2" rel="noopener">Portfolio</a>"#))
    #expect(html.contains(#"href="https://zoe.example/cv.pdf" rel="noopener">Get my CV</a>"#))
    #expect(html.contains("<h2>Résumé</h2>"))
    #expect(
      html.contains(#"<a class="save" href="/c/\#(username)/card.vcf" download>Save contact</a>"#))
    #expect(html.contains("<h2>Hello there</h2><p class=\"text\">Thanks for scanning</p>"))
    #expect(
      html.contains("Line one\nLine two") && html.contains("1 Rue de Rivoli, 75001 Paris, France"))

    // The picture this server serves, as a circle; nothing fetched from elsewhere (the logo
    // on another host is left out).
    #expect(html.contains(#"<img class="avatar" src="/img/pic1""#))
    #expect(!html.contains("elsewhere.example"))
    for source in Self.all(html, "src=\"") { #expect(source.hasPrefix("/"), "\(source)") }

    // The same card by its slug-less URL's vCard link resolves (the page's button works).
    let vcard = try await servers.get("/c/\(username)/card.vcf")
    #expect(vcard.status == 200 && vcard.text.hasPrefix("BEGIN:VCARD\r\n"))
    await servers.stop()
  }

  @Test(
    "XSS matrix: a hostile value in every text field a page shows is text, never markup, in elements and attributes"
  )
  func hostileValues() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    let hostile = #"x"'><script>alert(1)</script><img src=x onerror=alert(1)><style>*{}</style>"#
    let text = [
      "firstName", "middleName", "lastName", "prefix", "credentials", "pronouns", "description",
      "jobTitle", "company", "aboutMe", "customMessage", "customMessageHeader", "cvHeader",
      "cvDescription", "cvDisplayText",
    ]
    var card: [String: Any] = Dictionary(uniqueKeysWithValues: text.map { ($0, hostile) })
    card["address"] = Dictionary(
      uniqueKeysWithValues: ["street", "city", "region", "country"].map { ($0, hostile) })
    card["webLinks"] = [["url": "https://x.example/", "displayText": hostile]]
    card["cvUrl"] = "https://x.example/cv.pdf"
    let json = String(decoding: try JSONSerialization.data(withJSONObject: card), as: UTF8.self)
    let made = try ana.object("CARD.CREATE", json)
    #expect(made["firstName"] as? String == hostile)

    let html = try await servers.get("/c/\(username)").text
    #expect(!html.contains("<script>") && !html.contains("<img src=x"))
    #expect(
      Self.all(html, "<script").count == 1 && html.contains(#"<script src="/static/card.js""#))
    #expect(html.components(separatedBy: "<style>").count == 2)
    #expect(!html.contains(#"x"'>"#))
    let escaped =
      "x&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
      + "&lt;style&gt;*{}&lt;/style&gt;"
    // Every field is there, as text: the name (in the title, heading and alt), the address
    // parts, the role, and the rest once each.
    #expect(html.components(separatedBy: escaped).count - 1 >= text.count + 4, "\(html)")
    await servers.stop()
  }

  @Test(
    "a card with no picture shows its initials in the circle; a second card lives at /c/<username>/<slug> while Pro lasts"
  )
  func slugAndInitials() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    let admin = try servers.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object("CARD.CREATE", #"{"firstName":"ana","lastName":"lima"}"#)
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Work","lastName":"Card"}"#)
    let slug = try #require(second["slug"] as? String)

    let primary = try await servers.get("/c/\(username)")
    #expect(primary.status == 200 && primary.text.contains(">AL</div>"))
    let page = try await servers.get("/c/\(username)/\(slug)")
    #expect(page.status == 200 && page.text.contains("<h1>Work Card</h1>"))
    #expect(page.text.contains(#"href="/c/\#(username)/\#(slug)/card.vcf""#))
    await servers.stop()
  }

  @Test(
    "an inactive card's page says exactly \"This card is no longer active.\" and offers a free card; its vCard is refused too"
  )
  func inactive() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    let admin = try servers.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Secret","lastName":"Side"}"#)
    let slug = try #require(second["slug"] as? String)
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "0")

    let page = try await servers.get("/c/\(username)/\(slug)")
    #expect(page.status == 410)
    #expect(page.text.contains("<h1>This card is no longer active.</h1>"))
    #expect(page.text.contains(#"<a href="https://cards.test/">Create your free card</a>"#))
    #expect(!page.text.contains("Secret") && !page.text.contains("Side"))
    #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
    let vcard = try await servers.get("/c/\(username)/\(slug)/card.vcf")
    #expect(vcard.status == 410 && !vcard.text.contains("Secret"))

    // Pro again: the card is back.
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    #expect(try await servers.get("/c/\(username)/\(slug)").status == 200)
    await servers.stop()
  }

  @Test("a deleted primary card's URL shows the placeholder until the next card takes it")
  func placeholder() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    let card = try ana.object("CARD.CREATE", #"{"firstName":"Old"}"#)
    #expect(try ana.text("CARD.DEL", "\(card["id"] as? Int ?? 0)") == "1")

    let page = try await servers.get("/c/\(username)")
    #expect(page.status == 200)
    #expect(page.text.contains("<h1>This card is being replaced.</h1>"))
    #expect(!page.text.contains("Old"))
    _ = try ana.object("CARD.CREATE", #"{"firstName":"New"}"#)
    #expect(try await servers.get("/c/\(username)").text.contains("<h1>New</h1>"))
    await servers.stop()
  }

  @Test("unknown users, slugs and vCards get a real 404 page")
  func notFound() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)
    for path in [
      "/c/nobody1", "/c/\(username)/zzz", "/c/nobody1/card.vcf", "/c/\(username)/zzz/card.vcf",
      "/c/%3Cscript%3E", "/nothing/here", "/c",
    ] {
      let page = try await servers.get(path)
      #expect(page.status == 404, "\(path)")
      #expect(page.header("Content-Type") == "text/html; charset=utf-8", "\(path)")
      #expect(page.text.contains("<h1>No card here.</h1>"), "\(path)")
      #expect(!page.text.contains("<script"), "\(path)")
    }
    // What the inactive page links to is there.
    let home = try await servers.get("/")
    #expect(home.status == 200 && home.text.contains("Create your free card"))
    await servers.stop()
  }

  @Test(
    "an edit shows on the page at once, even within the second: a kept page is used only while the card is unchanged"
  )
  func editsShowAtOnce() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    let card = try ana.object("CARD.CREATE", #"{"firstName":"Ana","jobTitle":"Pilot"}"#)
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Ana","jobTitle":"Writer"}"#)
    let cardID = "\(card["id"] as? Int ?? 0)"
    let slug = try #require(second["slug"] as? String)
    for title in ["Pilot", "Pilot", "Captain", "Admiral"] {
      if title != "Pilot" {
        _ = try ana.object("CARD.UPDATE", cardID, #"{"jobTitle":"\#(title)"}"#)
      }
      let page = try await servers.get("/c/\(username)")
      #expect(page.text.contains(#"<p class="role">\#(title)</p>"#), "\(title)")
      // Each card its own page.
      #expect(try await servers.get("/c/\(username)/\(slug)").text.contains("Writer"))
    }
    _ = try ana.object("CARD.UPDATE", cardID, #"{"jobTitle":null}"#)
    #expect(try await !servers.get("/c/\(username)").text.contains("Admiral"))
    await servers.stop()
  }

  @Test(
    "opening a page counts a view once a day: a viewer signed in by Bearer token or session cookie by CARD.GET's rule (never the owner's), an anonymous visitor by its client's daily hash (CARD.STATS)"
  )
  func views() async throws {
    try await awayFromUTCMidnight()
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    let card = try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)
    let id = "\(card["id"] as? Int ?? 0)"
    _ = try servers.signedIn("bo@x.org")
    _ = try servers.signedIn("cy@x.org")
    let session = try servers.connect()
    let bo = try session.text("SESSION.OPEN", "bo@x.org", "secret1")
    let cy = try session.text("SESSION.OPEN", "cy@x.org", "secret1")
    let owner = try session.text("SESSION.OPEN", "ana@x.org", "secret1")
    func total() throws -> Int? { try ana.object("CARD.STATS", id)["total"] as? Int }
    func open(_ headers: [String: String] = [:], _ path: String = "") async throws {
      let page = try await servers.get("/c/\(username)\(path)", headers: headers)
      #expect(page.status == 200)
    }

    // Anonymous: once per client (address and user agent) and day.
    try await open(["User-Agent": "phone"])
    #expect(try total() == 1)
    try await open(["User-Agent": "phone"])
    #expect(try total() == 1)
    try await open(["User-Agent": "laptop"])
    #expect(try total() == 2)
    // Signed in: once per account and day, whatever the client.
    try await open(["Authorization": "Bearer \(bo)", "User-Agent": "phone"])
    #expect(try total() == 3)
    try await open(["Authorization": "Bearer \(bo)", "User-Agent": "tablet"])
    #expect(try total() == 3)
    try await open(["Cookie": "cardatlas_session=\(cy)"])
    #expect(try total() == 4)
    try await open(["Authorization": "Bearer \(owner)"])
    // An unknown token is an anonymous visitor, here one already counted.
    try await open(["Authorization": "Bearer wrong", "User-Agent": "phone"])
    try await open(["Authorization": "Bearer \(cy)", "User-Agent": "other"], "/card.vcf")
    #expect(try total() == 4)
    // The same rule as RESP's: bo's CARD.OPEN today is not a second view.
    let boConnection = try servers.connect()
    #expect(try boConnection.text("AUTH", "bo@x.org", "secret1") == "OK")
    _ = try boConnection.object("CARD.OPEN", username)
    #expect(try total() == 4)

    // The store holds the anonymous visits as 16-byte hashes, no address or user agent.
    let (output, status) = try RedisProcess.run(
      "python3",
      [
        "-c",
        "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("
          + "'SELECT count(*), min(length(visitor)), max(length(visitor)) FROM card_visits')"
          + ".fetchone())",
        servers.directory + "/cardatlas.sqlite",
      ])
    #expect(status == 0 && output.trimmingCharacters(in: .whitespacesAndNewlines) == "(2, 16, 16)")
    await servers.stop()
  }

  static func between(_ text: String, _ start: String, _ end: String) -> String? {
    guard let a = text.range(of: start),
      let b = text.range(of: end, range: a.upperBound..<text.endIndex)
    else { return nil }
    return String(text[a.upperBound..<b.lowerBound])
  }

  /// Every value after `prefix` up to the next quote.
  static func all(_ text: String, _ prefix: String) -> [String] {
    text.components(separatedBy: prefix).dropFirst().map {
      String($0.prefix { $0 != "\"" })
    }
  }

  @Test(
    "a visitor guessing share URLs is limited per address: past the look-ups an hour, pages, vCards and QR codes answer 429 with Retry-After"
  )
  func guessingShareURLs() async throws {
    let servers = try await TestDaemon.web(cards: { $0.codeReadsPerAddress = 4 })
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)
    #expect(try await servers.get("/c/\(username)").status == 200)
    #expect(try await servers.get("/c/nobody").status == 404)
    #expect(try await servers.get("/c/\(username)/card.vcf").status == 200)
    #expect(try await servers.get("/c/\(username)/qr.svg").status == 200)
    for path in ["/c/\(username)", "/c/\(username)/card.vcf", "/c/\(username)/qr.png"] {
      let refused = try await servers.get(path)
      #expect(refused.status == 429, "\(path): \(refused.status)")
      #expect(
        refused.text.hasPrefix(
          "LIMIT at most 4 cards by code an hour from your address, retry after "))
      #expect(Int(refused.header("Retry-After") ?? "") ?? 0 > 0)
    }
    await servers.stop()
  }
}
