import Foundation
import RESP
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Graceful shutdown")
struct ShutdownTests {
  @Test("SIGTERM: in-flight writes are finished and durable, the process exits 0")
  func sigterm() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-term-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(directory: directory)
    let c = try RESPConnection(port: server.port)
    var pipeline: [UInt8] = []
    for i in 0..<3000 {
      pipeline += RESPConnection.frame([
        "GEOADD", "term", String(Double(i % 360) - 179.5), "10", "m\(i)",
      ])
    }
    try c.send(pipeline)
    #expect(try c.reply().text == ":1\r\n")
    server.signal(SIGTERM)
    var acknowledged = 1
    while let reply = try? c.reply() {
      #expect(reply.text == ":1\r\n")
      acknowledged += 1
    }
    server.waitUntilExit()
    #expect(server.exitStatus == 0)
    let again = try CardAtlasProcess(directory: directory)
    let count = try RESPConnection(port: again.port).command("ZCARD", "term").text
    // Every command the server ran was answered before it closed the connection, so exactly
    // the acknowledged members are stored.
    #expect(count == ":\(acknowledged)\r\n")
    #expect(acknowledged > 1, "the server had commands in flight when it was told to stop")
  }
}
