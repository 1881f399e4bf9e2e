import Foundation
import Testing

/// The pages as a phone's browser renders them: headless Chromium (one run for the suite, see
/// `BrowserRun`) over the real `cardatlas serve --http-port`, in light and dark.
@Suite(
  "Pages in headless Chromium",
  .enabled(
    if: BrowserRun.chromium != nil,
    "chromium is not installed (scripts/install-deps.sh installs it)"))
struct BrowserTests {
  static let lightBackground = "rgb(244, 245, 247)"
  static let darkBackground = "rgb(17, 19, 22)"

  /// A card page's one script: its share button's, from this server.
  static let cardScripts = ["/static/card.js"]

  /// What every page must be: its own requests only, no console error, no dialog, no script
  /// but `scripts` (from this server, never inline) and no event-handler attribute, nothing
  /// wider than the screen, the colours of its scheme; and the screenshot taken.
  static func expectClean(
    _ page: BrowserRun.PageReport, origin: String, scripts: [String] = []
  ) {
    let place = "\(page.name) (\(page.scheme))"
    #expect(!page.requests.isEmpty, "\(place)")
    for request in page.requests {
      #expect(request.hasPrefix(origin + "/"), "\(place) requested \(request)")
    }
    #expect(page.console.isEmpty, "\(place): \(page.console)")
    #expect(page.dialogs.isEmpty, "\(place) opened a dialog: \(page.dialogs)")
    #expect(page.dom.scripts == scripts.count && page.dom.scriptSources == scripts, "\(place)")
    #expect(page.dom.handlers.isEmpty, "\(place): \(page.dom.handlers)")
    #expect(page.dom.iframes == 0, "\(place)")
    #expect(page.dom.scrollWidth <= page.dom.viewportWidth, "\(place) is wider than the screen")
    #expect(page.dom.overflowing.isEmpty, "\(place): text spills out of \(page.dom.overflowing)")
    let background = page.scheme == "dark" ? darkBackground : lightBackground
    #expect(page.dom.background == background, "\(place)")
    let size = (try? FileManager.default.attributesOfItem(atPath: page.screenshot)[.size]) as? Int
    #expect((size ?? 0) > 1000, "\(place): no screenshot at \(page.screenshot)")
  }

  @Test(
    "a full card in light and dark: its name and fields, tel:, mailto:, social, web and CV links, the save-contact link to card.vcf, its own picture and logo"
  )
  func fullCard() async throws {
    let run = try await BrowserRun.shared.value
    let seeded = run.seeded
    let pages = run.pages("card")
    #expect(pages.map(\.scheme) == ["light", "dark"])
    for page in pages {
      Self.expectClean(page, origin: run.origin, scripts: Self.cardScripts)
      let dom = page.dom
      #expect(page.status == 200)
      #expect(dom.title == Seeded.fullName)
      #expect(dom.h1 == [Seeded.fullName])
      for text in [
        "elle/she", "Ingénieure cartographe · Atlas & Fils, S.A.",
        "Cartes du monde · Χάρτες · خرائط",
        "Je dessine des cartes.\nI draw maps.", "Merci !", "Thanks for scanning — à bientôt.",
        "12 Große Straße, 80331 München, Bayern, Deutschland", "Résumé", "Ten years of maps.",
        "+33 6 12 34 56 78", "(555) 123-4567", "zoe@example.org",
      ] {
        #expect(dom.text.contains(text), "\(page.scheme): \(text)")
      }
      let hrefs = Set(dom.links.compactMap(\.href))
      for href in [
        "tel:+33612345678", "tel:5551234567", "mailto:zoe@example.org",
        "https://www.linkedin.com/in/zoe-lukasiewicz", "https://x.com/zoe_maps",
        "https://facebook.com/zoe", "https://instagram.com/zoe", "https://tiktok.com/@zoe",
        "https://youtube.com/@zoe", "https://discord.gg/zoe", "https://twitch.tv/zoe",
        "https://snapchat.com/add/zoe", "https://t.me/zoe", "https://wa.me/33612345678",
        "https://threads.net/@zoe", "https://zoe.example/portfolio?a=1&b=2",
        "https://bücher.example/straße", "https://zoe.example/cv.pdf",
      ] {
        #expect(hrefs.contains(href), "\(page.scheme): no link to \(href)")
      }
      #expect(dom.links.first { $0.href == "https://zoe.example/cv.pdf" }?.text == "Get my CV")
      let save = try #require(dom.links.first { $0.className == "save" })
      #expect(save.href == "/c/\(seeded.full)/card.vcf" && save.download)
      #expect(save.text == "Save contact")
      #expect(Set(dom.links.map(\.protocol)).isSubset(of: ["https:", "http:", "tel:", "mailto:"]))
      // The picture (a circle) and the logo are the uploads, loaded from this server.
      let avatar = try #require(dom.images.first { $0.className == "avatar" })
      #expect(avatar.src == seeded.picture && avatar.loaded)
      let logo = try #require(dom.images.first { $0.className == "logo" })
      #expect(logo.src == seeded.logo && logo.loaded)
      #expect(page.requests.contains(run.origin + seeded.picture))
      let banner = try #require(dom.images.first { $0.className == "banner" })
      #expect(banner.src == seeded.banner && banner.loaded)
    }
  }

  @Test(
    "a link preview's meta read back in light and dark: og:title, og:description, og:url and og:image, the Twitter card, theme-color; og:image loads as 1200×630; the share button shows and answers a click; the QR code loads; the theme colours Save contact"
  )
  func sharing() async throws {
    let run = try await BrowserRun.shared.value
    let page = "\(run.origin)/c/\(run.seeded.full)"
    for report in run.pages("card") {
      let place = report.scheme
      let meta = try #require(
        try? JSONDecoder().decode(
          [String: String].self, from: Data((report.evaluated["meta"] ?? "").utf8)),
        "\(place)")
      let summary = "Ingénieure cartographe · Atlas & Fils, S.A. — Cartes du monde · Χάρτες · خرائط"
      #expect(
        meta == [
          "og:type": "profile", "og:title": Seeded.fullName, "og:description": summary,
          "og:url": page, "og:image": page + "/og.png", "og:image:width": "1200",
          "og:image:height": "630", "og:image:alt": Seeded.fullName,
          "twitter:card": "summary_large_image", "twitter:image": page + "/og.png",
          "twitter:title": Seeded.fullName, "twitter:description": summary,
          "theme-color": "#1a73e8",
        ], "\(place): \(meta)")
      #expect(report.evaluated["preview"] == "[1200, 630]", "\(place)")
      #expect(report.requests.contains(page + "/og.png"), "\(place)")
      // Shown by its script; a click shares, or here (no share sheet, or one refused without
      // a tap) copies the link or shows it to copy.
      let share = try #require(
        try? JSONDecoder().decode([String].self, from: Data((report.evaluated["share"] ?? "").utf8))
      )
      #expect(share.first == "shown", "\(place)")
      #expect(["Link copied", page].contains(share.last ?? ""), "\(place): \(share)")
      let qr = try #require(report.dom.images.first { $0.className == "qr" }, "\(place)")
      #expect(qr.src == "/c/\(run.seeded.full)/qr.svg" && qr.loaded, "\(place)")
      #expect(report.evaluated["accent"] == #""rgb(26, 115, 232)""#, "\(place)")
    }
  }

  @Test(
    "the inactive card's page, the reserved URL's placeholder and the 404 page, in light and dark"
  )
  func notices() async throws {
    let run = try await BrowserRun.shared.value
    let expected: [(name: String, status: Int, heading: String, link: Bool)] = [
      ("inactive", 410, "This card is no longer active.", true),
      ("placeholder", 200, "This card is being replaced.", false),
      ("not-found", 404, "No card here.", true),
    ]
    for (name, status, heading, link) in expected {
      let pages = run.pages(name)
      #expect(pages.count == 2, "\(name)")
      for page in pages {
        Self.expectClean(page, origin: run.origin)
        #expect(page.status == status, "\(name)")
        #expect(page.dom.h1 == [heading], "\(name)")
        let create = page.dom.links.first { $0.text == "Create your free card" }
        #expect((create?.href == run.origin + "/") == link, "\(name): \(page.dom.links)")
        #expect(page.dom.links.count == (link ? 1 : 0), "\(name)")
        #expect(page.dom.images.isEmpty)
        for hidden in ["Hidden", "Secondcard", "Deleted"] {
          #expect(!page.dom.text.contains(hidden), "\(name) shows \(hidden)")
        }
      }
    }
  }

  /// The elements a card page is made of; anything else was injected.
  static let pageElements: Set<String> = [
    "html", "head", "meta", "title", "link", "style", "script", "body", "main", "article",
    "header", "img", "div", "h1", "p", "a", "button", "ul", "li", "span", "section", "h2",
    "footer",
  ]

  @Test(
    "XSS matrix: hostile text in every field is shown as text, runs no script, injects no element, loads nothing from elsewhere and leaves the layout whole"
  )
  func hostileText() async throws {
    let run = try await BrowserRun.shared.value
    #expect(run.seeded.hostile.count == Seeded.hostileText.count)
    for (index, value) in Seeded.hostileText.enumerated() {
      let pages = run.pages("xss-\(index)")
      #expect(pages.count == 2, "\(value)")
      for page in pages {
        Self.expectClean(page, origin: run.origin, scripts: Self.cardScripts)
        let dom = page.dom
        #expect(page.status == 200, "\(value)")
        #expect(Set(dom.elements).isSubset(of: Self.pageElements), "\(value): \(dom.elements)")
        // The name is whole, in its one heading, and in the title; the heading is on screen.
        #expect(dom.h1 == [Seeded.hostileName(value)], "\(value): \(dom.h1)")
        #expect(dom.title == Seeded.hostileName(value), "\(value)")
        let box = try #require(dom.h1Boxes.first)
        #expect(box.width > 0 && box.height > 0, "\(value)")
        #expect(box.left >= 0 && box.right <= Double(dom.viewportWidth), "\(value): \(box)")
        // Text of several lines is shown as written.
        #expect(dom.text.contains(value), "\(value)")
        #expect(dom.links.allSatisfy { ["https:", "http:"].contains($0.protocol) }, "\(value)")
        // The logo and banner elsewhere are not shown (nor requested: `expectClean`).
        #expect(!dom.images.contains { $0.src?.contains("images.example") == true })
      }
    }
  }

  @Test(
    "XSS matrix: javascript:, data: and vbscript: URLs, and URLs with markup, are refused in every URL field by CARD.CREATE"
  )
  func hostileURLs() async throws {
    let run = try await BrowserRun.shared.value
    #expect(run.seeded.urlReplies.count == Seeded.urlFields.count * Seeded.hostileURLs.count)
    for (field, value, reply) in run.seeded.urlReplies {
      #expect(reply.hasPrefix("INVALID"), "\(field) = \(value): \(reply)")
      #expect(reply.contains(field), "\(field) = \(value): \(reply)")
    }
  }

  @Test(
    "the map page in light and dark: country outlines and one cluster of the three cards, from this server only; a click on the cluster zooms in until it splits"
  )
  func mapPage() async throws {
    let run = try await BrowserRun.shared.value
    let pages = run.pages("map")
    #expect(pages.map(\.scheme) == ["light", "dark"])
    for page in pages {
      let place = "map (\(page.scheme))"
      #expect(page.status == 200)
      for request in page.requests {
        #expect(request.hasPrefix(run.origin + "/"), "\(place) requested \(request)")
      }
      #expect(page.requests.contains(run.origin + "/static/leaflet/leaflet.js"), "\(place)")
      #expect(
        page.requests.contains { $0.hasPrefix(run.origin + "/v1/cards?bbox=") }, "\(place)")
      #expect(page.console.isEmpty, "\(place): \(page.console)")
      #expect(page.dialogs.isEmpty && page.dom.iframes == 0, "\(place)")
      // Before the click the page waited for exactly one cluster reading 3 (BrowserRun.mapPage).
      let number = { (key: String) in Int(page.evaluated[key] ?? "") ?? -1 }
      let clusters =
        (try? JSONDecoder().decode(
          [String].self, from: Data((page.evaluated["clusters"] ?? "").utf8)))
        ?? []
      #expect(number("countries") > 100, "\(place): the country outlines")
      #expect(number("features") >= 2 && number("markers") + clusters.count >= 2, "\(place)")
      #expect(clusters.allSatisfy { Int($0).map { $0 < 3 } ?? false }, "\(place): \(clusters)")
      // Dark land in dark mode; a card's summary links its page.
      let land = page.scheme == "dark" ? "rgb(39, 48, 59)" : "rgb(233, 237, 242)"
      #expect(page.evaluated["land"] == "\"\(land)\"", "\(place): \(page.evaluated)")
      let popup =
        (try? JSONDecoder().decode([String].self, from: Data((page.evaluated["popup"] ?? "").utf8)))
        ?? []
      #expect(
        popup.count == 2 && popup[0].hasPrefix("Map ")
          && popup[1].hasPrefix(run.origin + "/c/"), "\(place): \(popup)")
      let size = (try? FileManager.default.attributesOfItem(atPath: page.screenshot)[.size]) as? Int
      #expect((size ?? 0) > 1000, "\(place): no screenshot at \(page.screenshot)")
    }
  }

  @Test(
    "a venue's check-in page in Chromium, as a phone's camera opens it: a guest checks in with a name and an email, then an account signs up, signs in from the page's link, comes back to it and checks in"
  )
  func checkInPages() async throws {
    let run = try await BrowserRun.shared.value
    let pages = run.pages("checkin")
    #expect(pages.map(\.scheme) == ["light", "dark"])
    func text(_ page: BrowserRun.PageReport, _ key: String) -> String {
      (try? JSONDecoder().decode(String.self, from: Data((page.evaluated[key] ?? "").utf8))) ?? ""
    }
    for page in pages {
      let place = "checkin (\(page.scheme))"
      #expect(page.console.isEmpty && page.dialogs.isEmpty, "\(place): \(page.console)")
      #expect(page.dom.scripts == 0 && page.dom.handlers.isEmpty, "\(place)")
      #expect(text(page, "form").contains("Café Nord"), "\(place): \(page.evaluated)")
      #expect(text(page, "guest") == "You are checked in at Café Nord, Guest Gil.", "\(place)")
      #expect(text(page, "offer") == "Check in as \(text(page, "email"))", "\(place)")
      #expect(text(page, "member") == "You are checked in at Café Nord.", "\(place)")
    }
    for page in run.pages("checkin-guest") {
      let place = "checkin-guest (\(page.scheme))"
      #expect(page.status == 200 && page.dom.h1 == ["Café Nord"], "\(place): \(page.dom.h1)")
      #expect(page.dom.text.contains("Check in as a guest"), "\(place)")
      #expect(page.console.isEmpty && page.dom.scripts == 0, "\(place): \(page.console)")
      #expect(page.dom.overflowing.isEmpty, "\(place): \(page.dom.overflowing)")
      #expect(page.dom.scrollWidth <= page.dom.viewportWidth, "\(place)")
    }
    #expect(run.pages("checkin-guest").count == 2)
  }

  @Test(
    "the account pages in Chromium, light and dark: sign up, sign in, create a card with a photo at a city, find it through the map's API, add another's card to the wallet; no script, no console error, the session cookie out of the page's reach"
  )
  func accountPages() async throws {
    let run = try await BrowserRun.shared.value
    let pages = run.pages("account")
    #expect(pages.map(\.scheme) == ["light", "dark"])
    for page in pages {
      let place = "account (\(page.scheme))"
      #expect(page.url.hasSuffix("/account/signup"))
      #expect(page.console.isEmpty, "\(place): \(page.console)")
      #expect(page.dialogs.isEmpty && page.dom.iframes == 0 && page.dom.scripts == 0, "\(place)")
      #expect(page.dom.handlers.isEmpty, "\(place): \(page.dom.handlers)")
      for request in page.requests {
        #expect(request.hasPrefix(run.origin + "/"), "\(place) requested \(request)")
      }
      // The card list after saving, the map's features around Lima, the wallet at the end.
      #expect(page.evaluated["cards"]?.contains("Web Newcomer") == true, "\(place)")
      let map =
        (try? JSONSerialization.jsonObject(with: Data((page.evaluated["map"] ?? "").utf8)))
        as? [[Any]] ?? []
      let city = try? JSONDecoder().decode(
        String.self, from: Data((page.evaluated["city"] ?? "").utf8))
      #expect(
        map.contains {
          $0.first as? String == "Web" && $0[1] as? String == city && $0[2] as? Bool == true
        },
        "\(place): \(map)")
      let wallet = try? JSONDecoder().decode(
        [String].self, from: Data((page.evaluated["wallet"] ?? "").utf8))
      #expect(wallet == ["Zoë Łukasiewicz-Núñez"], "\(place): \(page.evaluated)")
      // HttpOnly: neither the session nor the form value is readable by a script.
      #expect(page.evaluated["cookies"] == "\"\"", "\(place): \(page.evaluated)")
      #expect(page.dom.title == "Wallet", "\(place)")
      let size = (try? FileManager.default.attributesOfItem(atPath: page.screenshot)[.size]) as? Int
      #expect((size ?? 0) > 1000, "\(place): no screenshot at \(page.screenshot)")
    }
  }

  @Test(
    "over the demo's 3,000 cards at zooms 1, 2, 5 and 8, in light and dark: no two markers overlap on the screen, and every count fits its circle, abbreviated past 999"
  )
  func crowdedMap() async throws {
    let run = try await BrowserRun.shared.value
    for name in ["demo-map-1", "demo-map-2", "demo-map-5", "demo-map-8"] {
      let pages = run.pages(name)
      #expect(pages.map(\.scheme) == ["light", "dark"])
      for page in pages {
        let place = "\(name) (\(page.scheme))"
        #expect(page.console.isEmpty, "\(place): \(page.console)")
        let circles =
          (try? JSONDecoder().decode(
            [[Double]].self, from: Data((page.evaluated["circles"] ?? "").utf8))) ?? []
        let labels =
          (try? JSONDecoder().decode(
            [String].self, from: Data((page.evaluated["labels"] ?? "").utf8))) ?? []
        #expect(
          circles.count >= 3 && Int(page.evaluated["features"] ?? "") ?? 0 >= circles.count,
          "\(place): \(circles.count) markers")
        for i in circles.indices {
          for j in circles.indices where j > i {
            let (a, b) = (circles[i], circles[j])
            let apart = ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])).squareRoot()
            #expect(apart >= a[2] + b[2] - 0.5, "\(place): \(a) and \(b) overlap")
          }
        }
        #expect(page.evaluated["fits"] == "true", "\(place)")
        for label in labels {
          #expect(
            label.count <= 4 && (Int(label).map { $0 < 1000 } ?? label.hasSuffix("k")),
            "\(place): \(label)")
        }
      }
    }
    // At zoom 1 the demo's cards are thousands in a few circles: a count abbreviated (1.3k).
    let world = run.pages("demo-map-1").first?.evaluated["labels"] ?? ""
    #expect(world.contains(".") && world.contains("k"), "\(world)")
  }

  @Test(
    "the view and filter in the URL: a link opens at its view with its filter (the API asked with it); a filter and a search move the URL; a reload opens where it was"
  )
  func mapURL() async throws {
    let run = try await BrowserRun.shared.value
    let pages = run.pages("map-url")
    #expect(pages.map(\.scheme) == ["light", "dark"])
    for page in pages {
      let place = "map-url (\(page.scheme))"
      #expect(page.console.isEmpty, "\(place): \(page.console)")
      let value = { (key: String) -> [String] in
        let text =
          (try? JSONDecoder().decode(String.self, from: Data((page.evaluated[key] ?? "").utf8)))
          ?? ""
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
      }
      #expect(
        value("opened") == ["#6/48.85000/2.35000?company=Acme", "company", "Acme"], "\(place)")
      #expect(
        page.requests.contains { $0.contains("/v1/cards?bbox=") && $0.hasSuffix("&company=Acme") },
        "\(place)")
      #expect(page.requests.contains { $0.hasSuffix("&city=Paris") }, "\(place)")
      #expect(page.requests.contains { $0.contains("/v1/geocode?count=1&q=Tokyo") }, "\(place)")
      let searched = value("searched")
      #expect(
        searched.count == 3 && searched[0].hasPrefix("#11/35.")
          && searched[0].hasSuffix("?city=Paris")
          && searched[1] == "city" && searched[2] == "Paris", "\(place): \(searched)")
      #expect(value("reloaded") == searched, "\(place)")
    }
  }
}
