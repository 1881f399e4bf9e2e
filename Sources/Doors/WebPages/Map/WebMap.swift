import Datasets
import Foundation
import Hummingbird
import Logging
import Mustache
import NIOCore

/// `GET /map`: the cards on a Leaflet map (Debian's `libjs-leaflet`, served from here under
/// `/static/leaflet/`), over the bundled Natural Earth country outlines or the configured
/// tiles. Everything it loads comes from this server (or the tile server, when set): its CSP
/// allows nothing else, and no inline script or style.
public struct WebMap: Sendable {
  public struct Options: Sendable {
    /// A Leaflet tile URL template (`https://{s}.tile.example/{z}/{x}/{y}.png`); nil draws
    /// the country outlines on a plain background, offline.
    public var tileURL: String?
    public var tileAttribution = ""
    /// Where Debian's `libjs-leaflet` puts Leaflet.
    public var leafletDirectory = "/usr/share/javascript/leaflet"
    /// The country outlines (`data/countries.geojson`); nil: found as the data folder is.
    public var countriesFile: String?

    public init() {}

    /// A tile URL the page may name: http(s), and nothing that could end the attribute or the
    /// CSP source it becomes.
    public static func isValidTileURL(_ url: String) -> Bool {
      let lower = url.lowercased()
      return (lower.hasPrefix("https://") || lower.hasPrefix("http://"))
        && !url.contains(where: { " \"'<>;,\\".contains($0) || $0.isNewline })
    }
  }

  /// A file the page loads: its type and bytes, read once at start.
  struct Asset: Sendable {
    let type: String
    let bytes: ByteBuffer
  }

  /// Leaflet's files the page and its style sheet use.
  static let leafletFiles = [
    "leaflet.js", "leaflet.css", "images/layers.png", "images/layers-2x.png",
    "images/marker-icon.png", "images/marker-icon-2x.png", "images/marker-shadow.png",
  ]

  let assets: [String: Asset]
  let html: String
  let contentSecurityPolicy: String

  init(options: Options, logger: Logger) throws {
    var assets: [String: Asset] = [
      "/static/map.js": Asset(type: "text/javascript; charset=utf-8", text: MapScript.javascript),
      "/static/map.css": Asset(type: "text/css; charset=utf-8", text: MapScript.css),
    ]
    var missing: [String] = []
    for name in Self.leafletFiles {
      let path = options.leafletDirectory + "/" + name
      guard let data = FileManager.default.contents(atPath: path) else {
        missing.append(path)
        continue
      }
      assets["/static/leaflet/" + name] = Asset(type: Self.type(of: name), data: data)
    }
    if !missing.isEmpty {
      logger.warning(
        "the map page lacks Leaflet (apt-get install libjs-leaflet)",
        metadata: ["missing": "\(missing.joined(separator: ", "))"])
    }
    let countries = options.countriesFile ?? (try? DataDirectory.file("countries.geojson"))?.path
    if let countries, let data = FileManager.default.contents(atPath: countries) {
      assets["/static/countries.geojson"] = Asset(type: "application/geo+json", data: data)
    } else {
      logger.warning("the map page has no country outlines (data/countries.geojson)")
    }
    self.assets = assets
    let tiles = options.tileURL.flatMap { Options.isValidTileURL($0) ? $0 : nil }
    html =
      try MustacheTemplate(string: Self.template).render([
        "tiles": tiles ?? "", "attribution": options.tileAttribution,
      ])
    contentSecurityPolicy =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'"
      + (tiles.map { " " + Self.origin(ofTemplate: $0) } ?? "")
      + "; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
  }

  func add(to router: Router<PageContext>) {
    router.get("/map") { _, _ in
      PageResponse.html(html, status: .ok, contentSecurityPolicy: contentSecurityPolicy)
    }
    router.get("/static/**") { request, _ in
      guard let asset = assets[request.uri.path] else {
        return PageResponse.text("Not found\n", status: .notFound)
      }
      return Response(
        status: .ok,
        headers: [
          .contentType: asset.type, .xContentTypeOptions: "nosniff",
          .cacheControl: "public, max-age=3600",
        ],
        body: .init(byteBuffer: asset.bytes))
    }
  }

  /// The CSP source of a tile template's server: `{s}` subdomains as `*`.
  static func origin(ofTemplate url: String) -> String {
    let scheme = url.prefix { $0 != ":" }
    let host = url.dropFirst(scheme.count + 3).prefix { $0 != "/" }
    return "\(scheme)://" + host.replacingOccurrences(of: "{s}", with: "*")
  }

  static func type(of name: String) -> String {
    if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
    if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
    return "image/png"
  }

  static let template = """
    \(PageTemplates.documentStart)
    <title>CardAtlas map</title>
    <link rel="stylesheet" href="/static/leaflet/leaflet.css">
    <link rel="stylesheet" href="/static/map.css">
    </head>
    <body>
    <div id="map" data-countries="/static/countries.geojson" data-tiles="{{tiles}}" data-tiles-attribution="{{attribution}}"></div>
    <div class="panel">
    <h1>CardAtlas map</h1>
    <form id="search" role="search" autocomplete="off"><input id="place" type="search" placeholder="Find a place" aria-label="Find a place" maxlength="200"><button type="submit">Go</button></form>
    <form id="filter" autocomplete="off"><select id="field" aria-label="Filter by"><option value="company">Company</option><option value="jobTitle">Job title</option><option value="city">City</option></select><input id="value" type="search" placeholder="Any" aria-label="Filter value" maxlength="150"><button type="submit">Filter</button></form>
    <p id="status" role="status"></p>
    <p><span class="dot"></span> a card &nbsp; <span class="ring">12</span> cards close together (click to zoom in)</p>
    </div>
    <script src="/static/leaflet/leaflet.js"></script>
    <script src="/static/map.js"></script>
    </body>
    </html>

    """
}

extension WebMap.Asset {
  init(type: String, text: String) { self.init(type: type, bytes: ByteBuffer(string: text)) }
  init(type: String, data: Data) { self.init(type: type, bytes: ByteBuffer(data: data)) }
}

extension PageResponse {
  /// A page with its own policy (the map's loads its scripts and styles from here).
  static func html(_ body: String, status: HTTPResponse.Status, contentSecurityPolicy: String)
    -> Response
  {
    var response = html(body, status: status)
    response.headers[.contentSecurityPolicy] = contentSecurityPolicy
    return response
  }
}
