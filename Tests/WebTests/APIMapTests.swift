import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// `GET /v1/cards` and `/v1/cards/nearby` over real HTTP, against CARD.CLUSTERS and CARD.SEARCH
/// over RESP on the same server.
@Suite("HTTP API: the map")
struct APIMapTests {
  /// Cards around Paris and on both sides of the antimeridian (Fiji), shown on the map; one
  /// hidden (showOnMap false) and one inactive (its owner's Pro ended), both in Paris.
  struct Map {
    let servers: TestDaemon
    let resp: RESPConnection
    var shown: Set<Int> = []
    var hidden = 0
    var inactive = 0
  }

  /// In Europe, Acme's in Paris; in the Pacific, Bula's in Suva.
  static func card(_ name: String, _ lon: Double, _ lat: Double, shown: Bool = true) -> String {
    let (company, city) = abs(lon) > 100 ? ("Bula Ltd", "Suva") : ("Acme", "Paris")
    return
      #"{"firstName":"\#(name)","company":"\#(company)","address":{"city":"\#(city)"},"showOnMap":\#(shown),"location":{"lon":\#(lon),"lat":\#(lat)}}"#
  }

  /// How many cards a FeatureCollection's markers hold.
  static func total(_ collection: [String: Any]) -> Int {
    (collection["features"] as? [[String: Any]] ?? []).reduce(0) { sum, feature in
      let properties = feature["properties"] as? [String: Any] ?? [:]
      return sum + (properties["cluster"] as? Bool == true ? properties["count"] as? Int ?? 0 : 1)
    }
  }

  static func map(_ servers: TestDaemon) throws -> Map {
    let admin = try servers.connect()
    let places: [(Double, Double)] = [
      (2.35, 48.85), (2.36, 48.86), (2.30, 48.87), (2.29, 48.84), (2.40, 48.80),
      (179.5, -17.8), (-179.6, -17.9), (178.4, -18.1),
    ]
    var map = Map(servers: servers, resp: admin)
    for (i, (lon, lat)) in places.enumerated() {
      let (c, _, _) = try servers.signedIn("shown\(i)@x.org")
      map.shown.insert(try c.object("CARD.CREATE", card("Shown\(i)", lon, lat))["id"] as! Int)
    }
    let (h, _, _) = try servers.signedIn("hidden@x.org")
    map.hidden =
      try h.object("CARD.CREATE", card("Hidden", 2.351, 48.851, shown: false))["id"] as! Int
    let (p, proId, _) = try servers.signedIn("pro@x.org")
    _ = try admin.object("ACCOUNT.PRO", "\(proId)", "1")
    map.shown.insert(try p.object("CARD.CREATE", card("Primary", 2.352, 48.852))["id"] as! Int)
    map.inactive = try p.object("CARD.CREATE", card("Second", 2.353, 48.853))["id"] as! Int
    _ = try admin.object("ACCOUNT.PRO", "\(proId)", "0")
    return map
  }

  @Test(
    "GET /v1/cards is CARD.CLUSTERS's FeatureCollection byte for byte, across the antimeridian too, with no hidden or inactive card"
  )
  func clusters() async throws {
    try await TestDaemon.with { servers in
      let map = try Self.map(servers)
      let (reader, _, _) = try map.servers.signedIn("reader@x.org")
      let cases: [(bbox: [String], zoom: Int)] = [
        (["-10", "35", "30", "60"], 3), (["2.2", "48.7", "2.5", "48.9"], 12),
        (["2.34", "48.84", "2.37", "48.87"], 15), (["170", "-30", "-170", "-10"], 5),
        (["179", "-18.5", "-179", "-17.5"], 9), (["-180", "-90", "180", "90"], 0),
        (["-180", "-90", "180", "90"], 2),
      ]
      for (bbox, zoom) in cases {
        let fetched = try await map.servers.get(
          "/v1/cards?bbox=\(bbox.joined(separator: ","))&zoom=\(zoom)")
        #expect(fetched.status == 200)
        #expect(fetched.header("Content-Type") == "application/geo+json")
        #expect(fetched.header("Access-Control-Allow-Origin") == "*")
        let resp = try reader.text(["CARD.CLUSTERS"] + bbox + ["\(zoom)"])
        #expect(fetched.text == resp, "bbox \(bbox) zoom \(zoom)")
        #expect(fetched.object["type"] as? String == "FeatureCollection")
      }
      // CARD.CLUSTERS's filters, as parameters.
      for (query, filter, total) in [
        ("company=acme", ["company", "acme"], 6),
        ("company=Bula%20Ltd", ["company", "Bula Ltd"], 3),
        ("company=Nobody", ["company", "Nobody"], 0),
        ("city=Suva&company=Acme", ["city", "Suva", "FILTER", "company", "Acme"], 0),
      ] {
        let fetched = try await map.servers.get("/v1/cards?bbox=-180,-90,180,90&zoom=2&\(query)")
        let resp = try reader.text(
          ["CARD.CLUSTERS", "-180", "-90", "180", "90", "2", "FILTER"] + filter)
        #expect(fetched.status == 200 && fetched.text == resp, "\(query)")
        #expect(Self.total(fetched.object) == total, "\(query)")
      }
      // The world holds the shown cards, and no others (the hidden and inactive ones are in
      // Paris too); no single card is either of them.
      let world = try await map.servers.get("/v1/cards?bbox=-180,-90,180,90&zoom=0")
      #expect(Self.total(world.object) == map.shown.count)
      for zoom in [12, 14] {
        let paris = try await map.servers.get("/v1/cards?bbox=2.28,48.79,2.41,48.88&zoom=\(zoom)")
        #expect(paris.status == 200)
        let features = try #require(paris.object["features"] as? [[String: Any]])
        let ids = features.compactMap { ($0["properties"] as? [String: Any])?["id"] as? Int }
        #expect(!ids.isEmpty && Set(ids).isSubset(of: map.shown))
        #expect(!ids.contains(map.hidden) && !ids.contains(map.inactive))
        #expect(Self.total(paris.object) == 6)
      }
      // Crossing the antimeridian: the three Fiji cards, from both sides.
      let fiji = try await map.servers.get("/v1/cards?bbox=170,-30,-170,-10&zoom=5")
      #expect(Self.total(fiji.object) == 3)
    }
  }

  @Test(
    "GET /v1/cards/nearby lists what CARD.SEARCH … BYRADIUS finds, nearest first, never hidden or inactive cards"
  )
  func nearby() async throws {
    try await TestDaemon.with { servers in
      let map = try Self.map(servers)
      let (reader, _, _) = try map.servers.signedIn("reader@x.org")
      for (radius, count) in [(5_000, 10), (5_000, 2), (20_000, 100), (1, 10)] {
        let fetched = try await map.servers.get(
          "/v1/cards/nearby?lon=2.35&lat=48.85&radius=\(radius)&count=\(count)")
        #expect(fetched.status == 200)
        #expect(fetched.header("Access-Control-Allow-Origin") == "*")
        let hits = try reader.command(
          "CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "\(radius)", "m", "COUNT",
          "\(count)", "ASC", "WITHDIST", "WITHCOORD"
        ).value.elements
        let listed = fetched.array
        #expect(listed.count == hits.count)
        for (item, hit) in zip(listed, hits) {
          let fields = hit.elements
          guard fields.count == 4, case .integer(let id) = fields[0],
            let distance = fields[1].string.flatMap(Double.init),
            let summary = fields[3].string.flatMap({
              try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            })
          else {
            Issue.record("unexpected CARD.SEARCH hit \(hit)")
            continue
          }
          #expect(item["id"] as? Int == id)
          #expect(abs((item["distance"] as? Double ?? -1) - distance) < 1e-9)
          #expect(
            item["longitude"] as? Double == fields[2].elements.first?.string.flatMap(Double.init))
          #expect(
            item["latitude"] as? Double == fields[2].elements.last?.string.flatMap(Double.init))
          for (key, value) in summary { #expect("\(item[key] ?? "")" == "\(value)", "\(key)") }
        }
        let ids = listed.compactMap { $0["id"] as? Int }
        #expect(!ids.contains(map.hidden) && !ids.contains(map.inactive))
        let distances = listed.compactMap { $0["distance"] as? Double }
        #expect(distances == distances.sorted())
      }
      let all = try await map.servers.get("/v1/cards/nearby?lon=2.35&lat=48.85&radius=20000")
      #expect(all.array.count == 6)
    }
  }

  @Test(
    "bad map parameters are a 400 (a bbox that is not a view, 422) with a JSON error, never a 5xx")
  func badParameters() async throws {
    try await TestDaemon.with { servers in
      let bad = [
        "/v1/cards", "/v1/cards?zoom=3", "/v1/cards?bbox=1,2,3&zoom=3",
        "/v1/cards?bbox=1,2,3,4,5&zoom=3", "/v1/cards?bbox=nan,0,1,1&zoom=3",
        "/v1/cards?bbox=0,0,inf,1&zoom=3", "/v1/cards?bbox=-181,0,1,1&zoom=3",
        "/v1/cards?bbox=0,-91,1,1&zoom=3",
        "/v1/cards?bbox=0,0,1,1", "/v1/cards?bbox=0,0,1,1&zoom=21",
        "/v1/cards?bbox=0,0,1,1&zoom=-1",
        "/v1/cards?bbox=0,0,1,1&zoom=1.5", "/v1/cards?bbox=a,b,c,d&zoom=1",
        "/v1/cards/nearby", "/v1/cards/nearby?lon=2&lat=48", "/v1/cards/nearby?lat=48&radius=5",
        "/v1/cards/nearby?lon=nan&lat=48&radius=5", "/v1/cards/nearby?lon=2&lat=91&radius=5",
        "/v1/cards/nearby?lon=200&lat=48&radius=5", "/v1/cards/nearby?lon=2&lat=48&radius=-1",
        "/v1/cards/nearby?lon=2&lat=48&radius=1e300", "/v1/cards/nearby?lon=2&lat=48&radius=inf",
        "/v1/cards/nearby?lon=2&lat=48&radius=5&count=0",
        "/v1/cards/nearby?lon=2&lat=48&radius=5&count=101",
        "/v1/cards/nearby?lon=2&lat=48&radius=5&count=99999999999999999999",
        "/v1/cards/nearby?lon=2&lat=48&radius=5&count=x",
      ]
      for path in bad {
        let fetched = try await servers.get(path)
        #expect(fetched.status == 400, "\(path)")
        #expect(fetched.header("Content-Type") == "application/json", "\(path)")
        #expect(fetched.error?.hasPrefix("ERR ") == true, "\(path): \(fetched.text)")
      }
      // Well formed, but no view: south above north, or larger than a 4096 × 4096-pixel view at
      // the zoom (the whole map at a city's zoom).
      let notViews = [
        "/v1/cards?bbox=0,10,1,5&zoom=3", "/v1/cards?bbox=-180,-85,180,85&zoom=6",
        "/v1/cards?bbox=2,48,3,49&zoom=20", "/v1/cards?bbox=170,-30,-170,-10&zoom=12",
      ]
      for path in notViews {
        let fetched = try await servers.get(path)
        #expect(fetched.status == 422, "\(path)")
        #expect(fetched.error?.hasPrefix("ERR bbox") == true, "\(path): \(fetched.text)")
      }
      let unknown = try await servers.get("/v1/nothing")
      #expect(unknown.status == 404 && unknown.error == "NOTFOUND no such route")
    }
  }

  @Test(
    "CORS: any origin on the API, a preflight answered with the methods and headers; the card pages unchanged"
  )
  func cors() async throws {
    try await TestDaemon.with { servers in
      let preflight = try await servers.send(
        "OPTIONS", "/v1/cards/mine",
        headers: [
          "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type",
        ])
      #expect(preflight.status == 204)
      #expect(preflight.header("Access-Control-Allow-Origin") == "*")
      let methods = preflight.header("Access-Control-Allow-Methods") ?? ""
      for method in ["GET", "POST", "PATCH", "DELETE"] { #expect(methods.contains(method)) }
      #expect(preflight.header("Access-Control-Allow-Headers") == "Authorization, Content-Type")
      #expect(preflight.header("Access-Control-Max-Age") == "600")
      let document = try await servers.get(
        "/openapi.json", headers: ["Origin": "https://x.example"])
      #expect(document.header("Access-Control-Allow-Origin") == "*")
      let denied = try await servers.get("/v1/cards/mine")
      #expect(denied.status == 401 && denied.header("Access-Control-Allow-Origin") == "*")
      let page = try await servers.get("/c/nobody")
      #expect(page.status == 404 && page.header("Access-Control-Allow-Origin") == nil)
      let pagePreflight = try await servers.send("OPTIONS", "/c/nobody")
      #expect(pagePreflight.header("Access-Control-Allow-Origin") == nil)
    }
  }

  @Test(
    "a method a path does not take is a 405 naming those it does (Allow); an unknown path a 404")
  func methodNotAllowed() async throws {
    try await TestDaemon.with { servers in
      let cases: [(method: String, path: String, allow: String)] = [
        ("TRACE", "/v1/cards?bbox=-10,35,30,60&zoom=0", "GET, HEAD, OPTIONS"),
        ("DELETE", "/v1/cards/nearby", "GET, HEAD, OPTIONS"),
        // The literal route wins over /v1/cards/{id}, which takes PATCH: as the router picks.
        ("PATCH", "/v1/cards/mine", "GET, HEAD, OPTIONS, POST"),
        ("POST", "/v1/cards/12", "DELETE, GET, HEAD, OPTIONS, PATCH"),
        ("GET", "/v1/wallet/12", "DELETE, OPTIONS"),
        ("PUT", "/openapi.json", "GET, HEAD, OPTIONS"),
      ]
      for (method, path, allow) in cases {
        let fetched = try await servers.send(method, path)
        #expect(fetched.status == 405, "\(method) \(path)")
        #expect(fetched.header("Allow") == allow, "\(method) \(path)")
        #expect(fetched.error == "ERR method not allowed", "\(method) \(path)")
        #expect(fetched.header("Access-Control-Allow-Origin") == "*", "\(method) \(path)")
      }
      // The pages: plain text, no CORS.
      let page = try await servers.send("POST", "/c/nobody")
      #expect(page.status == 405 && page.header("Allow") == "GET, HEAD")
      #expect(page.header("Access-Control-Allow-Origin") == nil)
      for (method, path) in [("POST", "/v1/nothing"), ("TRACE", "/v1/cards/1/x"), ("GET", "/v1")] {
        let fetched = try await servers.send(method, path)
        #expect(fetched.status == 404 && fetched.error == "NOTFOUND no such route", "\(path)")
      }
      // The catch-all serves the pages' 404 to any GET, and is no route for other methods.
      #expect(try await servers.send("DELETE", "/nothing/here").status == 404)
    }
  }
}
