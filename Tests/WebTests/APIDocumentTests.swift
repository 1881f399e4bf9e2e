import DaemonTestSupport
import Foundation
import RedisTestSupport
import Testing

/// `/openapi.json`: in step with the router, and a live server that schemathesis finds keeps to
/// it (no 5xx, every response as described).
@Suite("HTTP API: the OpenAPI document")
struct APIDocumentTests {
  static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

  @Test("every API route registered is in the document, and every route it describes is registered")
  func inStepWithTheRouter() async throws {
    try await TestDaemon.with { servers in
      let fetched = try await servers.get("/openapi.json")
      #expect(fetched.status == 200 && fetched.header("Content-Type") == "application/json")
      let document = fetched.object
      #expect(document["openapi"] as? String == "3.1.0")
      let components = try #require(document["components"] as? [String: Any])
      let schemes = try #require(components["securitySchemes"] as? [String: Any])
      let bearer = try #require(schemes["bearer"] as? [String: Any])
      #expect(bearer["type"] as? String == "http" && bearer["scheme"] as? String == "bearer")

      let paths = try #require(document["paths"] as? [String: [String: Any]])
      var described: Set<String> = []
      for (path, item) in paths {
        for method in item.keys where Self.methods.contains(method) {
          described.insert("\(method.uppercased()) \(path)")
          let operation = try #require(item[method] as? [String: Any])
          let responses = try #require(operation["responses"] as? [String: Any])
          #expect(!responses.isEmpty, "\(method) \(path)")
          // A secured operation documents its 401; each path parameter is declared.
          if operation["security"] != nil { #expect(responses["401"] != nil, "\(method) \(path)") }
          let declared = Set(
            (operation["parameters"] as? [[String: Any]] ?? []).filter {
              $0["in"] as? String == "path"
            }
            .compactMap { $0["name"] as? String })
          let inPath = Set(
            path.split(separator: "/").filter { $0.hasPrefix("{") }.map {
              String($0.dropFirst().dropLast())
            })
          #expect(declared == inPath, "\(method) \(path)")
        }
      }
      let registered = Set(
        servers.web.routes.filter { route in
          let path = route.split(separator: " ").last.map(String.init) ?? ""
          return path.hasPrefix("/v1/") || path == "/v1" || path == "/openapi.json"
        })
      #expect(!registered.isEmpty)
      #expect(
        registered.subtracting(described).isEmpty,
        "not described: \(registered.subtracting(described))")
      #expect(
        described.subtracting(registered).isEmpty,
        "not registered: \(described.subtracting(registered))")
    }
  }

  @Test(
    "schemathesis with all its checks against a live server: no 5xx, every response as the document says, what it allows accepted, what it forbids refused, 405 for other methods"
  )
  func schemathesis() async throws {
    // The real executable: schemathesis's requests must not wait for this test process's
    // threads, which the other tests keep busy.
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-schemathesis-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let http = try RedisProcess.freeLoopbackPort()
    let server = try CardAtlasProcess(
      directory: directory,
      arguments: ["--http-port", "\(http)", "--public-url", "https://cards.test"])
    // A card on the map for the public reads; a Pro account whose new cards the document's
    // links lead schemathesis to read, patch and delete (its stateful phase).
    func member(_ email: String) throws -> (RESPConnection, id: Int, token: String) {
      let c = try RESPConnection(port: server.port)
      let (id, _) = try c.signUp(email)
      return (c, id, try c.text("SESSION.OPEN", email, "secret1"))
    }
    let (owner, _, _) = try member("zoe@x.org")
    _ = try owner.object(
      "CARD.CREATE", #"{"firstName":"Zoe","showOnMap":true,"location":{"lon":2.35,"lat":48.85}}"#)
    let (_, id, token) = try member("st@x.org")
    _ = try RESPConnection(port: server.port).object("ACCOUNT.PRO", "\(id)", "1")
    let scratch = directory + "/schemathesis"
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let configuration = scratch + "/schemathesis.toml"
    try Self.configuration.write(toFile: configuration, atomically: true, encoding: .utf8)
    // Bounded twice: 30 examples per operation, and 5 minutes for the whole run (6 s alone; over
    // 60 s once beside the whole suite and an AddressSanitizer run on 2 cores).
    let (output, status) = try await RedisProcess.runDetached(
      "timeout",
      [
        "300", "python3", "-c", Self.schemathesisCLI, "--config-file", configuration, "run",
        "http://127.0.0.1:\(http)/openapi.json", "--checks", "all",
        "--max-examples", "30", "--seed", "1",
        "--workers", "1", "--request-timeout", "5", "--generation-database", "none",
        "--header", "Authorization: Bearer \(token)", "--no-color",
      ], in: scratch)
    #expect(status == 0, "\(output)")
    #expect(output.contains(" passed") && !output.contains(" failed"), "\(output)")
  }

  /// What an OpenAPI schema cannot say, each answered as HTTP says: a bbox well formed but too
  /// large for its zoom (422, the zoom being another parameter), and an upload whose bytes are
  /// not a whole file of a type its kind takes (415; `format: binary` says nothing of the
  /// bytes) or an image of too many pixels (422). schemathesis's "valid data accepted" check
  /// takes these statuses for these two operations; every other status it refuses, as by
  /// default.
  static let configuration = """
    [[operations]]
    include-operation-id = "clusters"
    checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", 401, 403, 404, 409, 422, 429, "5xx"]

    [[operations]]
    include-operation-id = "putAsset"
    checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", 401, 403, 404, 409, 415, 422, 429, "5xx"]
    """

  /// schemathesis's command line, through the python3 that scripts/install-deps.sh installed it
  /// for (pip's `--user` scripts folder may not be on the PATH).
  static let schemathesisCLI =
    "import sys; from schemathesis.cli import schemathesis; schemathesis(prog_name='schemathesis')"
}
