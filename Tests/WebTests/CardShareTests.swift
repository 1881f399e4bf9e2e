import Crypto
import DaemonTestSupport
import Foundation
import RedisTestSupport
import Testing

/// What makes a card page worth sharing, over real HTTP: the link preview's meta and image, the
/// share button, the QR code, the theme and banner, the site's icon and manifest.
@Suite("Card pages: sharing")
struct CardShareTests {
  /// The `content` of the page's `<meta property|name="key">`, as written (escaped).
  static func meta(_ html: String, _ key: String) -> String? {
    for attribute in ["property", "name"] {
      if let content = CardPageTests.between(
        html, "<meta \(attribute)=\"\(key)\" content=\"", "\">")
      {
        return content
      }
    }
    return nil
  }

  /// A PNG's width and height, from its header.
  static func pngSize(_ bytes: Data) -> (Int, Int)? {
    let b = [UInt8](bytes)
    guard b.count > 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
      return nil
    }
    func number(_ at: Int) -> Int { b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (number(16), number(20))
  }

  @Test(
    "a link preview's meta: Open Graph and Twitter tags with the name, title and company, the 1200×630 og.png and the page's URL, at /c/<user> and /c/<user>/<slug>"
  )
  func linkPreview() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object(
      "CARD.CREATE",
      #"{"firstName":"Ana","lastName":"Lima","jobTitle":"Pilot","company":"Acme & Co","description":"Maps"}"#
    )
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Work","lastName":"Card"}"#)
    let slug = try #require(second["slug"] as? String)
    let base = "\(TestDaemon.publicURL)/c/\(username)"

    let html = try await servers.get("/c/\(username)").text
    #expect(Self.meta(html, "og:title") == "Ana Lima")
    #expect(Self.meta(html, "og:description") == "Pilot · Acme &amp; Co — Maps")
    #expect(Self.meta(html, "description") == "Pilot · Acme &amp; Co — Maps")
    #expect(Self.meta(html, "og:type") == "profile")
    #expect(Self.meta(html, "og:url") == base)
    #expect(Self.meta(html, "og:image") == base + "/og.png")
    #expect(Self.meta(html, "og:image:width") == "1200")
    #expect(Self.meta(html, "og:image:height") == "630")
    #expect(Self.meta(html, "og:image:alt") == "Ana Lima")
    #expect(Self.meta(html, "twitter:card") == "summary_large_image")
    #expect(Self.meta(html, "twitter:title") == "Ana Lima")
    #expect(Self.meta(html, "twitter:description") == "Pilot · Acme &amp; Co — Maps")
    #expect(Self.meta(html, "twitter:image") == base + "/og.png")

    for path in ["/c/\(username)", "/c/\(username)/\(slug)"] {
      let image = try await servers.get(path + "/og.png")
      #expect(image.status == 200, "\(path)")
      #expect(image.header("Content-Type") == "image/png")
      #expect(image.header("X-Content-Type-Options") == "nosniff")
      #expect(image.header("Cache-Control") == "public, no-cache")
      let size = try #require(Self.pngSize(image.body))
      #expect(size == (1200, 630), "\(path)")
      // A preview crawler's second look: 304 while the card is unchanged.
      let tag = try #require(image.header("ETag"))
      let again = try await servers.get(path + "/og.png", headers: ["If-None-Match": tag])
      #expect(again.status == 304 && again.body.isEmpty)
    }
    let slugPage = try await servers.get("/c/\(username)/\(slug)").text
    #expect(Self.meta(slugPage, "og:image") == "\(base)/\(slug)/og.png")
    #expect(Self.meta(slugPage, "og:title") == "Work Card")
    await servers.stop()
  }

  @Test(
    "og.png's ETag changes with an edit, even within the second; an inactive card's is 410 and a deleted one's 404, as their pages, never an image"
  )
  func previewFollowsTheCard() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    let admin = try servers.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    let first = try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Secret"}"#)
    let slug = try #require(second["slug"] as? String)
    let path = "/c/\(username)/og.png"
    let before = try await servers.get(path)
    _ = try ana.object("CARD.UPDATE", "\(first["id"] as? Int ?? 0)", #"{"jobTitle":"Pilot"}"#)
    let after = try await servers.get(path)
    #expect(after.status == 200 && before.header("ETag") != after.header("ETag"))
    #expect(after.body != before.body)
    let stale = try await servers.get(path, headers: ["If-None-Match": before.header("ETag")!])
    #expect(stale.status == 200)

    // Pro ends: the second card's page is 410, and so is its preview.
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "0")
    let page = try await servers.get("/c/\(username)/\(slug)")
    let hidden = try await servers.get("/c/\(username)/\(slug)/og.png")
    #expect(page.status == 410 && hidden.status == 410)
    #expect(hidden.header("Content-Type") == "text/html; charset=utf-8")
    #expect(!hidden.text.contains("Secret") && Self.pngSize(hidden.body) == nil)
    // A deleted primary card's URL is reserved (a placeholder page) but has no image; an
    // unknown user's neither.
    #expect(try ana.text("CARD.DEL", "\(first["id"] as? Int ?? 0)") == "1")
    #expect(try await servers.get(path).status == 404)
    #expect(try await servers.get("/c/nobody1/og.png").status == 404)
    await servers.stop()
  }

  @Test(
    "the share button (hidden until its script runs), the QR code of the share URL and Save contact; the one script is /static/card.js, served as JavaScript; no inline script or style attribute"
  )
  func shareAndQR() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    _ = try ana.object("CARD.CREATE", #"{"firstName":"Ana"}"#)
    let page = try await servers.get("/c/\(username)")
    let html = page.text
    #expect(
      html.contains(
        #"<button class="share" type="button" data-url="\#(TestDaemon.publicURL)/c/\#(username)" hidden>Share</button>"#
      ))
    #expect(
      html.contains(#"<a class="save" href="/c/\#(username)/card.vcf" download>Save contact</a>"#))
    #expect(html.contains(#"<img class="qr" src="/c/\#(username)/qr.svg""#))
    #expect(try await servers.get("/c/\(username)/qr.svg").status == 200)
    #expect(
      !html.contains(" style=") && html.range(of: " on[a-z]+=", options: .regularExpression) == nil)
    #expect(CardPageTests.all(html, "<script").count == 1)

    let script = try await servers.get("/static/card.js")
    #expect(script.status == 200)
    #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
    #expect(script.text.contains("navigator.share") && script.text.contains("clipboard"))
    // The map's files are still there beside it.
    #expect(try await servers.get("/static/map.js").status == 200)
    // The notice pages have no script and allow none.
    let missing = try await servers.get("/c/nobody1")
    #expect(!missing.text.contains("<script"))
    #expect(missing.header("Content-Security-Policy")?.contains("script-src") == false)
    await servers.stop()
  }

  @Test(
    "a theme colour sets the page's accent in a style sheet the CSP allows by its hash, and theme-color; a banner from this server is shown, one from elsewhere is not"
  )
  func themeAndBanner() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object(
      "CARD.CREATE",
      ##"{"firstName":"Ana","themeColor":"#FFEB3B","bannerUrl":"https://elsewhere.example/b.jpg"}"##
    )
    let page = try await servers.get("/c/\(username)")
    let html = page.text
    #expect(Self.meta(html, "theme-color") == "#ffeb3b")
    // A light colour gets dark text on it.
    let theme = ":root{--accent:#ffeb3b;--on-accent:#111316}"
    #expect(html.contains("<style>\(theme)</style>"))
    let csp = try #require(page.header("Content-Security-Policy"))
    let hash = Data(SHA256.hash(data: Data(theme.utf8))).base64EncodedString()
    #expect(csp.contains("'sha256-\(hash)'"))
    #expect(!html.contains("elsewhere.example") && !html.contains(#"class="banner""#))
    // Without a theme, one style sheet and one hash.
    let (bo, _, boName) = try servers.signedIn("bo@x.org")
    _ = try bo.object("CARD.CREATE", #"{"firstName":"Bo"}"#)
    let plain = try await servers.get("/c/\(boName)")
    #expect(CardPageTests.all(plain.text, "<style>").count == 1)
    #expect(plain.header("Content-Security-Policy")?.components(separatedBy: "'sha256-").count == 2)
    await servers.stop()
  }

  @Test("/favicon.ico, /manifest.webmanifest and its icons are served, and every page links them")
  func iconAndManifest() async throws {
    let servers = try await TestDaemon.web()
    let icon = try await servers.get("/favicon.ico")
    #expect(icon.status == 200 && icon.header("Content-Type") == "image/x-icon")
    #expect([UInt8](icon.body.prefix(6)) == [0, 0, 1, 0, 3, 0])
    let manifest = try await servers.get("/manifest.webmanifest")
    #expect(manifest.header("Content-Type") == "application/manifest+json")
    let object = manifest.object
    #expect(object["name"] as? String == "CardAtlas" && object["start_url"] as? String == "/")
    let icons = object["icons"] as? [[String: Any]] ?? []
    #expect(icons.count == 2)
    for entry in icons {
      let src = try #require(entry["src"] as? String)
      let side = Int((entry["sizes"] as? String ?? "").split(separator: "x").first ?? "") ?? 0
      let png = try await servers.get(src)
      #expect(png.header("Content-Type") == "image/png")
      #expect(Self.pngSize(png.body).map { $0 == (side, side) } == true, "\(src)")
    }
    for path in ["/", "/c/nobody1"] {
      let html = try await servers.get(path).text
      #expect(html.contains(#"<link rel="icon" href="/favicon.ico">"#), "\(path)")
      #expect(html.contains(#"<link rel="manifest" href="/manifest.webmanifest">"#), "\(path)")
    }
    await servers.stop()
  }

  @Test(
    "XSS matrix: hostile text in the name, title, company and tagline is escaped in every meta tag, and drawn as an image like any other text"
  )
  func hostilePreview() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, username) = try servers.signedIn("ana@x.org")
    let hostile =
      #"x"'><script>alert(1)</script><meta http-equiv="refresh" content="0;url=javascript:alert(1)">"#
    let escaped =
      "x&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;meta http-equiv=&quot;refresh&quot; "
      + "content=&quot;0;url=javascript:alert(1)&quot;&gt;"
    let card: [String: Any] = [
      "firstName": hostile, "jobTitle": hostile, "company": hostile, "description": hostile,
    ]
    let json = String(decoding: try JSONSerialization.data(withJSONObject: card), as: UTF8.self)
    let made = try ana.object("CARD.CREATE", json)
    let html = try await servers.get("/c/\(username)").text
    for key in ["og:title", "og:image:alt", "twitter:title"] {
      #expect(Self.meta(html, key) == escaped, "\(key)")
    }
    for key in ["description", "og:description", "twitter:description"] {
      #expect(Self.meta(html, key) == "\(escaped) · \(escaped) — \(escaped)", "\(key)")
    }
    #expect(!html.contains("<meta http-equiv") && !html.contains("<script>"))
    let image = try await servers.get("/c/\(username)/og.png")
    #expect(image.status == 200 && Self.pngSize(image.body).map { $0 == (1200, 630) } == true)
    // Refused colours never reach the page's style sheet.
    for color in ["#fff;}body{display:none", "red</style><script>alert(1)</script>", "#12345"] {
      let reply = try ana.text(
        "CARD.UPDATE", "\(made["id"] as? Int ?? 0)", #"{"themeColor":"\#(color)"}"#)
      #expect(reply == "INVALID themeColor: must be a colour as #rrggbb", "\(color)")
    }
    await servers.stop()
  }

  @Test("the full card's page, every field set, is still under 10 KB before pictures")
  func pageSize() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    var card = try #require(
      try JSONSerialization.jsonObject(with: Data(CardPageTests.full.utf8)) as? [String: Any])
    card["themeColor"] = "#1a73e8"
    card["bannerUrl"] = "https://cards.test/img/banner1"
    let json = String(decoding: try JSONSerialization.data(withJSONObject: card), as: UTF8.self)
    _ = try ana.object("CARD.CREATE", json)
    let page = try await servers.get("/c/\(username)")
    #expect(page.status == 200 && page.text.contains(#"class="banner""#))
    #expect(page.body.count < 10_240, "\(page.body.count) bytes")
    await servers.stop()
  }
}
