import DaemonTestSupport
import Foundation
import Testing
import WebPages

/// `GET /map` and what it loads, over real HTTP: Leaflet from Debian's libjs-leaflet, the
/// script, the style sheet and the country outlines, each with its type, and a CSP that allows
/// nothing from elsewhere.
@Suite("Map page")
struct MapPageTests {
  static let leaflet = "/usr/share/javascript/leaflet"

  @Test(
    "the map page loads only files this server serves, each with its type; the CSP allows nothing else"
  )
  func offline() async throws {
    try await TestDaemon.with { servers in
      let page = try await servers.get("/map")
      #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
      #expect(page.header("X-Content-Type-Options") == "nosniff")
      let csp = try #require(page.header("Content-Security-Policy"))
      #expect(
        csp
          == "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
          + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
      let html = page.text
      #expect(!html.contains("<script>") && !html.contains("style="))
      // Every file the page names is a path here, and is served with its type.
      let named = Self.matches(#"(?:src|href|data-countries)="([^"]+)""#, in: html)
      #expect(
        Set(named) == [
          "/static/leaflet/leaflet.css", "/static/map.css", "/static/leaflet/leaflet.js",
          "/static/map.js", "/static/countries.geojson",
        ])
      let types = [
        ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
        ".geojson": "application/geo+json", ".png": "image/png",
      ]
      var files = named
      // And what Leaflet's style sheet names (its control icons).
      let css = try await servers.get("/static/leaflet/leaflet.css")
      // (`url(#default#VML)` is old Internet Explorer's behaviour, not a file.)
      files += Self.matches(#"url\(([^)#]+)\)"#, in: css.text).map { "/static/leaflet/" + $0 }
      #expect(files.count > 5)
      for path in files {
        let fetched = try await servers.get(path)
        #expect(fetched.status == 200, "\(path)")
        let type = types.first { path.hasSuffix($0.key) }?.value
        #expect(fetched.header("Content-Type") == type, "\(path)")
        #expect(fetched.header("X-Content-Type-Options") == "nosniff")
        if path.hasPrefix("/static/leaflet/") {
          let file = Self.leaflet + path.dropFirst("/static/leaflet".count)
          #expect(fetched.body == FileManager.default.contents(atPath: file), "\(path)")
        }
      }
      let script = try await servers.get("/static/map.js")
      #expect(script.text.contains("/v1/cards?bbox=") && !script.text.contains("innerHTML"))
      let countries = try await servers.get("/static/countries.geojson")
      let collection = try #require(
        try JSONSerialization.jsonObject(with: countries.body) as? [String: Any])
      #expect(collection["type"] as? String == "FeatureCollection")
      #expect((collection["features"] as? [Any])?.count ?? 0 > 150)
      #expect((collection["attribution"] as? String)?.contains("Natural Earth") == true)
      #expect(try await servers.get("/static/leaflet/leaflet-src.js").status == 404)
      #expect(try await servers.get("/static/../Package.swift").status == 404)
    }
  }

  @Test("with a tile URL, the page names it and its CSP allows images from that server only")
  func tiles() async throws {
    var options = WebMap.Options()
    options.tileURL = "https://{s}.tiles.example/{z}/{x}/{y}.png"
    options.tileAttribution = "© Example & co"
    let servers = try await TestDaemon.web(map: options)
    let page = try await servers.get("/map")
    #expect(page.text.contains(#"data-tiles="https://{s}.tiles.example/{z}/{x}/{y}.png""#))
    #expect(page.text.contains(#"data-tiles-attribution="© Example &amp; co""#))
    #expect(
      page.header("Content-Security-Policy")?.contains(
        "img-src 'self' https://*.tiles.example; connect-src 'self'") == true)
    await servers.stop()
    #expect(!WebMap.Options.isValidTileURL("javascript:alert(1)"))
    #expect(!WebMap.Options.isValidTileURL("https://x.example/'; script-src *"))
  }

  static func matches(_ pattern: String, in text: String) -> [String] {
    let regex = try! NSRegularExpression(pattern: pattern)
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
      Range($0.range(at: 1), in: text).map { String(text[$0]) }
    }
  }
}
