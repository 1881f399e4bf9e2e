import Foundation
import Geodesy
import RedisTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// CARDATLAS_NOMINATIM_URL, when set and not empty (`make test` starts the real Nominatim).
private let nominatim = ProcessInfo.processInfo.environment["CARDATLAS_NOMINATIM_URL"].flatMap {
  $0.isEmpty ? nil : $0
}

/// `cardatlas import` of real addresses against the real Nominatim of ../shared/nominatim,
/// through a proxy that counts the requests reaching it.
@Suite(
  "cardatlas import against a real Nominatim",
  .enabled(if: nominatim != nil, "CARDATLAS_NOMINATIM_URL is unset"))
struct NominatimImportTests {
  static let addresses = MediaFixtures.directory.deletingLastPathComponent()
    .appendingPathComponent("addresses/liechtenstein-autauga.csv")

  @Test("each card lands within 30 m of Nominatim's own answer; a re-import asks nothing again")
  func importLandsOnNominatimsData() async throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let proxy = try CountingProxy(upstream: nominatim!)
    defer { proxy.stop() }
    let rows = try csvRows(path: Self.addresses.path)
    let arguments = [
      Self.addresses.path, "--data", scratch.path("var"), "--geocoder", "nominatim",
      "--geocoder-url", proxy.url, "--rate", "50", "--concurrency", "4",
      "--checkpoint", scratch.path("checkpoint"), "--report", scratch.path("report.csv"),
    ]
    let first = try runImport(arguments, in: scratch)
    #expect(first.status == 0, "\(first.out)\n\(first.err)")
    let report = try reportRows(scratch.path("report.csv"))
    #expect(report.count == rows.count)
    // One request per address, and one more for each part dropped after a miss (the extract
    // has no Alabama to match a region against): never the same request twice.
    let asked = proxy.requests
    #expect(asked.count >= rows.count && Set(asked).count == asked.count, "\(asked)")

    for (row, line) in zip(rows, report) {
      let text = [row["street"]!, row["postcode"]! + " " + row["city"]!, row["country"]!]
        .joined(separator: ", ")
      let expected = try await Self.reference(text)
      #expect(line["status"] == "created", "\(text): \(line)")
      guard let lon = Double(line["lon"] ?? ""), let lat = Double(line["lat"] ?? "") else {
        Issue.record("\(text) has no location: \(line)")
        continue
      }
      let metres = Sphere.earth.distance(
        longitude: lon, latitude: lat, longitude: expected.lon, latitude: expected.lat)
      #expect(metres < 30, "\(text): \(line["label"] ?? "") is \(Int(metres)) m off")
    }

    // The same file again (a finished import leaves no checkpoint, so it starts over): every
    // answer comes from the cache.
    #expect(!FileManager.default.fileExists(atPath: scratch.path("checkpoint")))
    let again = try runImport(
      arguments.map { $0 == scratch.path("report.csv") ? scratch.path("again.csv") : $0 },
      in: scratch)
    #expect(again.status == 0, "\(again.out)\n\(again.err)")
    #expect(proxy.requests == asked, "the re-import asked the geocoder again")
    let second = try reportRows(scratch.path("again.csv"))
    #expect(second.map { $0["status"] } == Array(repeating: "unchanged", count: rows.count))
    #expect(second.map { $0["lon"] } == report.map { $0["lon"] })
    #expect(try CardSet(data: scratch.path("var")).cards.count == rows.count)
  }

  /// Where Nominatim's own data puts an address: its free-form `format=json` answer.
  static func reference(_ text: String) async throws -> (lon: Double, lat: Double) {
    var components = URLComponents(string: nominatim! + "/search")!
    components.queryItems = [
      URLQueryItem(name: "q", value: text), URLQueryItem(name: "format", value: "json"),
      URLQueryItem(name: "limit", value: "1"),
    ]
    let (data, _) = try await URLSession.shared.data(from: components.url!)
    let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    let first = try #require(list.first, "Nominatim has no \(text)")
    return (
      Double(try #require(first["lon"] as? String))!, Double(try #require(first["lat"] as? String))!
    )
  }
}

/// A CSV file with a header and no quoted fields, as rows by column name.
private func csvRows(path: String) throws -> [[String: String]] {
  let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
  let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
  return lines.dropFirst().map { line in
    Dictionary(
      uniqueKeysWithValues: zip(
        header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
  }
}

/// A transparent HTTP proxy (Python's http.server) in front of a geocoder that logs each
/// request's path, so a test counts what reached the geocoder.
final class CountingProxy {
  private let program: BackgroundProgram

  init(upstream: String) throws {
    program = try BackgroundProgram(python: ["-c", Self.script, "{port}", upstream, "{dir}/log"])
  }

  var url: String { "http://127.0.0.1:\(program.port)" }

  /// The paths requested so far, in order.
  var requests: [String] {
    ((try? String(contentsOfFile: program.directory + "/log", encoding: .utf8)) ?? "")
      .split(separator: "\n").map(String.init)
  }

  func stop() { program.stop() }

  static let script = """
    import sys, threading, urllib.request, urllib.error
    from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
    port, upstream, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    lock = threading.Lock()
    class Proxy(BaseHTTPRequestHandler):
        def do_GET(self):
            with lock, open(log, "a") as f:
                f.write(self.path + "\\n")
            request = urllib.request.Request(upstream + self.path, headers={
                k: v for k, v in self.headers.items() if k.lower() in ("user-agent", "accept")})
            try:
                with urllib.request.urlopen(request, timeout=30) as r:
                    status, body, kind = r.status, r.read(), r.headers.get("Content-Type")
            except urllib.error.HTTPError as e:
                status, body, kind = e.code, e.read(), e.headers.get("Content-Type")
            self.send_response(status)
            self.send_header("Content-Type", kind or "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def log_message(self, *args):
            pass
    ThreadingHTTPServer(("127.0.0.1", port), Proxy).serve_forever()
    """
}
