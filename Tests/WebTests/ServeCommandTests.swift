import Foundation
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif
#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `cardatlas serve --http-port` as a process: both ports answer, on one store; SIGTERM stops
/// both; an HTTP port already taken fails the start.
@Suite("serve --http-port")
struct ServeCommandTests {
  static func start(_ directory: String, resp: UInt16, http: UInt16) throws -> ChildProcess {
    let process = ChildProcess()
    process.executableURL = try CardAtlasExecutable.url()
    process.arguments = [
      "serve", "--port", "\(resp)", "--http-port", "\(http)", "--data", directory,
      "--public-url", "https://cards.test", "--log-level", "warning",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  static func get(_ port: UInt16, _ path: String) async throws -> (Int, String) {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (body, response) = try await session.data(
      from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
  }

  @Test("the card made over RESP is the page over HTTP; SIGTERM stops both and exits 0")
  func bothPorts() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-serve-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (resp, http) = (try RedisProcess.freeLoopbackPort(), try RedisProcess.freeLoopbackPort())
    let process = try Self.start(directory, resp: resp, http: http)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var connection: RESPConnection?
    for _ in 0..<200 where connection == nil {
      connection = try? RESPConnection(port: resp)
      if connection == nil { usleep(50_000) }
    }
    let c = try #require(connection)
    let account = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    _ = try c.object("CARD.CREATE", #"{"firstName":"Ana","lastName":"Lima"}"#)
    let username = try #require(account["username"] as? String)
    var page = (0, "")
    for _ in 0..<100 where page.0 == 0 {
      page = (try? await Self.get(http, "/c/\(username)")) ?? (0, "")
      if page.0 == 0 { usleep(50_000) }
    }
    #expect(page.0 == 200 && page.1.contains("<h1>Ana Lima</h1>"))
    // Probes: alive, and ready (an embedded daemon binds HTTP once loaded).
    #expect(try await Self.get(http, "/healthz") == (200, "ok\n"))
    #expect(try await Self.get(http, "/readyz") == (200, "ready\n"))

    // A second daemon cannot take the HTTP port: it fails rather than run without pages.
    let other = try Self.start(
      directory + "-other", resp: try RedisProcess.freeLoopbackPort(), http: http)
    other.waitUntilExit()
    #expect(other.terminationStatus != 0)
    try? FileManager.default.removeItem(atPath: directory + "-other")

    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    await #expect(throws: (any Error).self) { _ = try await Self.get(http, "/c/\(username)") }
  }
}
