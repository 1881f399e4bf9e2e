import Foundation
import RedisTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One run of headless Chromium over the pages of a real `cardatlas serve --http-port`: the
/// server is started and seeded over RESP, `Tests/Browser/check_pages.py` opens every page in
/// both colour schemes with one browser, and the server is stopped; the tests then read the
/// report. Screenshots are kept in `.build/browser-artifacts/`.
///
/// Another page is one more `Page` in `pages` (with `waitFor` for a page that draws with
/// script) and its assertions in a test of its own.
struct BrowserRun: Sendable {
  let origin: String
  let report: [PageReport]
  /// What the seeding made: usernames, asset paths, and CARD.CREATE's reply to each refused value.
  let seeded: Seeded

  /// The browser runs once for all the tests that read it.
  static let shared = Task { try await BrowserRun() }

  static var chromium: URL? { RedisProcess.executable("chromium") }

  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let artifacts = packageRoot.appendingPathComponent(".build/browser-artifacts")

  struct Page: Encodable {
    let name: String
    let path: String
    var waitFor: String? = nil
    /// What a visitor then does, each step until its `waitFor` holds; `evaluate` runs after.
    var steps: [Step] = []
    var evaluate: [String: String] = [:]
  }

  struct Step: Encodable {
    let run: String
    let waitFor: String
  }

  struct PageReport: Decodable, Sendable {
    let name: String
    let scheme: String
    let url: String
    let status: Int?
    let dom: DOM
    /// Each `evaluate` expression's value, as JSON text.
    let evaluated: [String: String]
    let requests: [String]
    let console: [String]
    let dialogs: [String]
    let screenshot: String
  }

  struct DOM: Decodable, Sendable {
    struct Link: Decodable, Sendable {
      let href: String?
      let className: String
      let text: String
      let download: Bool
      let `protocol`: String
    }
    struct Image: Decodable, Sendable {
      let src: String?
      let className: String
      let loaded: Bool
    }
    struct Box: Decodable, Sendable {
      let width: Double
      let height: Double
      let left: Double
      let right: Double
    }
    let title: String
    let h1: [String]
    let h1Boxes: [Box]
    let text: String
    let links: [Link]
    let scripts: Int
    /// Each script's `src` (nil: an inline one).
    let scriptSources: [String?]
    let handlers: [String]
    let elements: [String]
    let images: [Image]
    let iframes: Int
    let background: String
    let scrollWidth: Int
    let overflowing: [String]
    /// The emulated phone's width, in CSS pixels.
    let viewportWidth: Int
  }

  func pages(_ name: String) -> [PageReport] { report.filter { $0.name == name } }

  private init() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-browser-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let httpPort = try RedisProcess.freeLoopbackPort()
    origin = "http://127.0.0.1:\(httpPort)"
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--http-port", "\(httpPort)", "--public-url", origin])
    // Stopped when this init ends: the report is all the tests read.
    defer {
      server.signal(SIGKILL)
      server.waitUntilExit()
    }
    let respPort = server.port
    let admin = try RESPConnection(port: respPort)
    seeded = try Seeded(admin: admin, port: respPort, origin: origin)

    var pages = [
      Self.cardPage(seeded.full),
      Page(name: "inactive", path: "/c/\(seeded.inactive)"),
      Page(name: "placeholder", path: "/c/\(seeded.placeholder)"),
      Page(name: "not-found", path: "/c/nobody-here"),
    ]
    for (index, path) in seeded.hostile.enumerated() {
      pages.append(Page(name: "xss-\(index)", path: path))
    }
    try Self.seedMap(port: respPort)
    pages.append(Self.mapPage)
    // The check-in page as a guest sees it, before any flow signs the browser in.
    let venueCode = try Self.seedVenue(port: respPort)
    pages.append(Page(name: "checkin-guest", path: "/v/\(venueCode)"))
    pages.append(Self.accountFlow(wallet: origin + "/c/" + seeded.full))
    pages.append(Self.checkInFlow(code: venueCode))
    report = try Self.check(pages, origin: origin) + Self.demoMaps()
  }

  /// The map over `serve --demo`'s 3,000 cards in the world's largest cities, where clusters
  /// crowd: at zooms 2, 5 and 8, and the view and filter kept in the URL. A server of its own.
  static func demoMaps() throws -> [PageReport] {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-browser-demo-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let httpPort = try RedisProcess.freeLoopbackPort()
    let origin = "http://127.0.0.1:\(httpPort)"
    let server = try CardAtlasProcess(
      directory: directory,
      arguments: ["--http-port", "\(httpPort)", "--public-url", origin, "--demo"])
    defer {
      server.signal(SIGKILL)
      server.waitUntilExit()
    }
    let drawn =
      "document.querySelector('#map').hasAttribute('data-features')"
      + " && document.querySelectorAll('svg path').length > 100"
    // The world (counts past 999 at zoom 1), Europe, and Shanghai's crowd of cities.
    let views = [
      ("demo-map-1", "#1/20/0"), ("demo-map-2", "#2/30/10"), ("demo-map-5", "#5/48.5/5"),
      ("demo-map-8", "#8/31.2/121.5"),
    ]
    var pages = views.map { name, hash in
      Page(
        name: name, path: "/map" + hash, waitFor: drawn,
        evaluate: [
          // Each marker as a circle on the screen: centre and radius (a dot's stroke included).
          "circles": "Array.from(document.querySelectorAll('.cluster, path.leaflet-interactive'))"
            + ".map(e => { const r = e.getBoundingClientRect();"
            + " return [r.left + r.width / 2, r.top + r.height / 2,"
            + " r.width / 2 + (e.localName === 'path' ? 1 : 0)]; })",
          "labels": "Array.from(document.querySelectorAll('.cluster')).map(e => e.textContent)",
          "fits": "Array.from(document.querySelectorAll('.cluster'))"
            + ".every(e => e.scrollWidth <= e.clientWidth)",
          "features": "Number(document.querySelector('#map').getAttribute('data-features'))",
          "hash": "location.hash",
        ])
    }
    let inputs =
      "JSON.stringify([location.hash, document.getElementById('field').value,"
      + " document.getElementById('value').value])"
    pages.append(
      Page(
        name: "map-url", path: "/map#6/48.85/2.35?company=Acme", waitFor: drawn,
        steps: [
          Step(run: "sessionStorage.opened = \(inputs)", waitFor: "sessionStorage.opened"),
          Step(
            run: "document.getElementById('field').value = 'city';"
              + " document.getElementById('value').value = 'Paris';"
              + " document.getElementById('filter').requestSubmit()",
            waitFor: "location.hash.endsWith('?city=Paris')"),
          Step(
            run: "document.getElementById('place').value = 'Tokyo';"
              + " document.getElementById('search').requestSubmit()",
            waitFor: "location.hash.startsWith('#11/35.')"),
          Step(
            run: "sessionStorage.searched = \(inputs); location.reload()",
            // The reloaded document, not the one about to go.
            waitFor: "performance.getEntriesByType('navigation')[0].type === 'reload'"
              + " && document.readyState === 'complete' && \(drawn)"),
        ],
        evaluate: [
          "opened": "sessionStorage.opened", "searched": "sessionStorage.searched",
          "reloaded": inputs, "status": "document.getElementById('status').textContent",
        ]))
    return try check(pages, origin: origin)
  }

  /// The full card once its script has shown the share button; then what a link preview and a
  /// visitor do: its `og:image` loaded, and a click on Share (which, where the browser has no
  /// share sheet or refuses it, copies the link or shows it).
  static func cardPage(_ username: String) -> Page {
    Page(
      name: "card", path: "/c/\(username)",
      waitFor: "!document.querySelector('button.share').hidden",
      steps: [
        Step(
          run: "window.preview = new Image();"
            + " preview.src = document.querySelector('meta[property=\"og:image\"]').content",
          waitFor: "preview.complete && preview.naturalWidth > 0"),
        Step(
          run: "document.querySelector('button.share').click()",
          waitFor: "document.querySelector('.status').textContent !== ''"),
      ],
      evaluate: [
        "meta": "Object.fromEntries(Array.from(document.querySelectorAll("
          + "'meta[property^=\"og:\"], meta[name^=\"twitter:\"], meta[name=\"theme-color\"]'))"
          + ".map(m => [m.getAttribute('property') || m.getAttribute('name'), m.content]))",
        "preview": "[preview.naturalWidth, preview.naturalHeight]",
        "share":
          "(() => { const r = document.querySelector('button.share').getBoundingClientRect();"
          + " return [r.width > 0 && r.height > 0 ? 'shown' : 'hidden',"
          + " document.querySelector('.status').textContent]; })()",
        "accent": "getComputedStyle(document.querySelector('.save')).backgroundColor",
      ])
  }

  /// Three cards on the map a few kilometres apart in Munich, one cluster at the world's zoom.
  static let mapCards = [(11.58, 48.14), (11.61, 48.16), (11.54, 48.12)]

  static func seedMap(port: UInt16) throws {
    for (index, (lon, lat)) in mapCards.enumerated() {
      let c = try RESPConnection(port: port)
      let email = "map\(index)@x.org"
      _ = try c.command("ACCOUNT.CREATE", email, "secret1")
      _ = try c.command("AUTH", email, "secret1")
      let card =
        #"{"firstName":"Map \#(index)","showOnMap":true,"location":{"lon":\#(lon),"lat":\#(lat)}}"#
      guard case .bulkString = try c.command("CARD.CREATE", card).value else {
        throw RESPConnection.Failed(description: "map card \(index) was not made")
      }
    }
  }

  /// The map: drawn once the countries and the markers are in; then a click on the cluster,
  /// which zooms in until it splits, and a click on a card, which opens its summary.
  static let mapPage = Page(
    name: "map", path: "/map",
    waitFor: "document.querySelectorAll('svg path').length > 100"
      + " && Array.from(document.querySelectorAll('.cluster')).map(e => e.textContent)"
      + ".join() === '3'",
    steps: [
      Step(
        run: "document.querySelector('.cluster').click()",
        waitFor: "document.querySelectorAll('.cluster').length"
          + " + document.querySelectorAll('path.leaflet-interactive').length >= 2"),
      // A click on one card opens its summary, with a link to its page.
      Step(
        // Once a dot is drawn (the markers are redrawn after each move).
        run: "(function click() { const dot = document.querySelector('path.leaflet-interactive');"
          + " if (!dot) { setTimeout(click, 50); return; }"
          + " const box = dot.getBoundingClientRect();"
          + " const at = {bubbles: true, cancelable: true, view: window,"
          + " clientX: box.left + box.width / 2, clientY: box.top + box.height / 2};"
          + " for (const type of ['mousedown', 'mouseup', 'click'])"
          + " dot.dispatchEvent(new MouseEvent(type, at)); })()",
        waitFor: "document.querySelector('.leaflet-popup-content a') !== null"),
    ],
    evaluate: [
      "popup": "[document.querySelector('.leaflet-popup-content strong').textContent,"
        + " document.querySelector('.leaflet-popup-content a').getAttribute('href')]",
      "land": "getComputedStyle(document.querySelector('svg path:not(.leaflet-interactive)')).fill",
      "markers": "document.querySelectorAll('path.leaflet-interactive').length",
      "clusters": "Array.from(document.querySelectorAll('.cluster')).map(e => e.textContent)",
      "countries": "document.querySelectorAll('svg path:not(.leaflet-interactive)').length",
      "features": "Number(document.querySelector('#map').getAttribute('data-features'))",
    ])

  /// A newcomer on the web: signs up (a new email each run), signs in, creates a card with a
  /// photo at a city (Lima or Cusco, far from the map page's cards), finds it through the map's
  /// API from
  /// the map page, and
  /// adds `wallet` (another's card's link) to the wallet. Each step is a form a visitor fills
  /// and sends; what it found is kept in `sessionStorage` across the pages.
  /// A venue of an account of its own; its check-in code.
  static func seedVenue(port: UInt16) throws -> String {
    let owner = try RESPConnection(port: port)
    _ = try owner.signUp("venue-owner@x.org")
    let venue = try owner.object("VENUE.CREATE", #"{"name":"Café Nord","lon":9.52,"lat":47.14}"#)
    return try owner.text("VENUE.CODE", "\(venue["id"] as? Int ?? 0)")
  }

  /// What a phone's camera opens from a venue's QR code (`/v/<code>`): a guest's check-in, then
  /// a sign-up, a sign-in from the page's link that comes back to it, and a check-in as the
  /// account. It starts signed out (the account flow, before it, ends signed in), and ends so.
  static func checkInFlow(code: String) -> Page {
    let loaded = "document.readyState === 'complete' && "
    let said = "document.querySelector('h1') && document.querySelector('h1').innerText"
    func fill(_ values: [String: String]) -> String {
      values.sorted { $0.key < $1.key }.map {
        "document.querySelector('[name=\($0.key)]').value = \($0.value);"
      }.joined(separator: " ")
    }
    return Page(
      name: "checkin", path: "/account/cards",
      steps: [
        Step(
          run: "const out = document.querySelector('form[action=\"/account/signout\"]');"
            + " if (out) { out.submit() } else { location.href = '/account/signin?out=1' }",
          waitFor: loaded + "location.pathname === '/account/signin'"),
        Step(
          run: "location.href = '/v/\(code)'",
          waitFor: loaded + "location.pathname === '/v/\(code)'"),
        Step(
          run: "sessionStorage.form = document.querySelector('main, body').innerText; "
            + fill(["name": "'Guest Gil'", "email": "'gil@x.org'"])
            + " document.querySelector('[name=name]').form.submit()",
          waitFor: loaded + "(\(said) || '').startsWith('You are checked in')"),
        Step(
          run: "sessionStorage.guest = \(said); sessionStorage.email = 'v' + Date.now() + '@x.org';"
            + " location.href = '/account/signup'",
          waitFor: loaded + "location.pathname === '/account/signup'"),
        Step(
          run: fill(["email": "sessionStorage.email", "password": "'secret1'"])
            + " document.querySelector('form').submit()",
          waitFor: loaded + "location.pathname === '/account/signin'"),
        Step(
          run: "location.href = '/account/signin?next=/v/\(code)'",
          waitFor: loaded + "location.search.startsWith('?next=')"),
        Step(
          run: fill(["email": "sessionStorage.email", "password": "'secret1'"])
            + " document.querySelector('[name=password]').form.submit()",
          waitFor: loaded + "location.pathname === '/v/\(code)'"),
        Step(
          run: "const form = document.querySelector('form[action=\"/v/\(code)\"]');"
            + " sessionStorage.offer = form.querySelector('button').innerText; form.submit()",
          waitFor: loaded + "(\(said) || '').startsWith('You are checked in')"),
        Step(
          run: "sessionStorage.member = \(said);"
            + " document.querySelector('form[action=\"/account/signout\"]').submit()",
          waitFor: loaded + "location.pathname === '/account/signin'"),
      ],
      evaluate: [
        "form": "sessionStorage.form", "guest": "sessionStorage.guest",
        "offer": "sessionStorage.offer", "member": "sessionStorage.member",
        "email": "sessionStorage.email",
      ])
  }

  static func accountFlow(wallet: String) -> Page {
    let loaded = "document.readyState === 'complete' && "
    func fill(_ values: [String: String]) -> String {
      values.sorted { $0.key < $1.key }.map {
        "document.querySelector('[name=\($0.key)]').value = \($0.value);"
      }.joined(separator: " ")
    }
    // An 8×8 red PNG.
    let png =
      "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC"
    return Page(
      name: "account", path: "/account/signup",
      steps: [
        Step(
          // One tab serves both schemes: the light run's values must not answer the dark's.
          run: "sessionStorage.clear(); sessionStorage.email = 'web' + Date.now() + '@x.org'; "
            // Each run's card in a city of its own: two at one point would be one cluster.
            + "sessionStorage.city = matchMedia('(prefers-color-scheme: dark)').matches"
            + " ? 'Cusco' : 'Lima'; "
            + fill(["email": "sessionStorage.email", "password": "'secret1'"])
            + " document.querySelector('form').submit()",
          waitFor: loaded + "location.pathname === '/account/signin'"),
        Step(
          run: fill(["email": "sessionStorage.email", "password": "'secret1'"])
            + " document.querySelector('form').submit()",
          waitFor: loaded + "location.pathname === '/account/cards'"),
        Step(
          run: "location.href = '/account/cards/new'",
          waitFor: loaded + "location.pathname === '/account/cards/new'"),
        Step(
          run: fill([
            "firstName": "'Web'", "lastName": "'Newcomer'", "company": "'Atlas Web'",
            "city": "sessionStorage.city", "country": "'Peru'",
          ])
            + " document.querySelector('[name=showOnMap]').checked = true;"
            + " const bytes = Uint8Array.from(atob('\(png)'), c => c.charCodeAt(0));"
            + " const files = new DataTransfer();"
            + " files.items.add(new File([bytes], 'me.png', {type: 'image/png'}));"
            + " document.querySelector('[name=photo]').files = files.files;"
            + " document.querySelector('form[enctype]').submit()",
          waitFor: loaded + "location.search === '?saved=1'"),
        Step(
          run: "sessionStorage.cards = document.querySelector('.items').innerText;"
            + " location.href = '/map'",
          waitFor: loaded + "location.pathname === '/map'"),
        // From the map page, whose policy lets it ask the API (the account pages' does not).
        Step(
          run: "fetch('/v1/cards?bbox=-82,-19,-68,0&zoom=6').then(r => r.json())"
            + ".then(j => { sessionStorage.map = JSON.stringify(j.features.map(f =>"
            + " [f.properties.firstName, f.properties.city, Boolean(f.properties.imageUrl)])); })",
          waitFor: "sessionStorage.map !== undefined"),
        Step(
          run: "location.href = '/account/wallet'",
          waitFor: loaded + "location.pathname === '/account/wallet'"),
        Step(
          run: fill(["card": "'\(wallet)'"])
            + " document.querySelector('[name=card]').form.submit()",
          waitFor: loaded + "location.search === '?added=1'"),
      ],
      evaluate: [
        "cards": "sessionStorage.cards",
        "map": "JSON.parse(sessionStorage.map)",
        "city": "sessionStorage.city",
        "wallet": "Array.from(document.querySelectorAll('.items .name')).map(e => e.textContent)",
        "cookies": "document.cookie",
      ])
  }

  /// Runs the script over `pages`; its report.
  static func check(_ pages: [Page], origin: String) throws -> [PageReport] {
    struct Plan: Encodable {
      let origin: String
      let artifacts: String
      let schemes: [String]
      let pages: [Page]
    }
    let work = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-browser-plan-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let plan = work.appendingPathComponent("plan.json")
    let report = work.appendingPathComponent("report.json")
    let log = work.appendingPathComponent("log.txt")
    try JSONEncoder().encode(
      Plan(origin: origin, artifacts: artifacts.path, schemes: ["light", "dark"], pages: pages)
    ).write(to: plan)
    FileManager.default.createFile(atPath: log.path, contents: nil)
    let sink = try FileHandle(forWritingTo: log)
    defer { try? sink.close() }
    let python = ChildProcess()
    python.executableURL = try require(RedisProcess.executable("python3"), "python3")
    python.arguments = [
      packageRoot.appendingPathComponent("Tests/Browser/check_pages.py").path, plan.path,
      report.path,
    ]
    python.standardOutput = sink
    python.standardError = sink
    try python.run()
    python.waitUntilExit()
    guard python.terminationStatus == 0 else {
      throw RESPConnection.Failed(
        description:
          "check_pages.py failed: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")"
      )
    }
    struct Report: Decodable { let pages: [PageReport] }
    return try JSONDecoder().decode(Report.self, from: Data(contentsOf: report)).pages
  }
}

/// `#require` outside a test: the value, or an error that says what was missing.
func require<T>(_ value: T?, _ what: String = #function) throws -> T {
  guard let value else { throw RESPConnection.Failed(description: "missing: \(what)") }
  return value
}
