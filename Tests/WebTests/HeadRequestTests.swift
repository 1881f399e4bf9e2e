import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// HEAD on every kind of GET route: the GET's status and headers, no body on the wire.
@Suite("HEAD requests")
struct HeadRequestTests {
  @Test(
    "HEAD answers as GET without the body (Content-Length the GET's) on pages, vCards, QR codes, uploads, the API, the map and 404s; a HEAD of a card page is not a view"
  )
  func head() async throws {
    try await TestDaemon.with { servers in
      let (ana, _, username) = try servers.signedIn("ana@x.org")
      let card = try ana.object("CARD.CREATE", #"{"firstName":"Ana","company":"Acme"}"#)
      let id = try #require(card["id"] as? Int)
      let asset = try #require(
        URL(string: try AssetTests.upload(ana, "IMAGE", "python.png"))?.path)
      let paths = [
        "/c/\(username)", "/c/\(username)/card.vcf", "/c/\(username)/qr.png", asset, "/map",
        "/openapi.json", "/v1/cards?bbox=-10,-10,10,10&zoom=3", "/c/nobody", "/a/nope",
      ]
      for path in paths {
        let get = try await servers.get(path, headers: ["User-Agent": "get"])
        let head = try await Self.head(servers.httpPort, path)
        #expect(head.status == get.status, "\(path)")
        #expect(head.headers["content-length"] == "\(get.body.count)", "\(path): \(head.headers)")
        #expect(head.headers["content-type"] == get.header("Content-Type"), "\(path)")
        #expect(head.headers["etag"] == get.header("ETag"), "\(path)")
        #expect(head.bodyBytes == 0, "\(path): a body after the headers")
      }
      // The GET of the loop was the page's one view; HEADs from new clients add none.
      #expect(try ana.object("CARD.STATS", "\(id)")["total"] as? Int == 1)
      for agent in ["link-checker", "cache"] {
        _ = try await Self.head(servers.httpPort, "/c/\(username)", agent: agent)
      }
      #expect(try ana.object("CARD.STATS", "\(id)")["total"] as? Int == 1)
    }
  }

  /// A HEAD over a raw socket, read until the server closes: what came after the headers is
  /// counted, not dropped as an HTTP client would.
  static func head(_ port: Int, _ path: String, agent: String = "head") async throws -> (
    status: Int, headers: [String: String], bodyBytes: Int
  ) {
    let script = """
      import socket, sys
      s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
      s.sendall(("HEAD " + sys.argv[2] + " HTTP/1.1\\r\\nHost: x\\r\\nUser-Agent: " + sys.argv[3]
                 + "\\r\\nConnection: close\\r\\n\\r\\n").encode())
      data = b""
      while chunk := s.recv(65536): data += chunk
      head, _, rest = data.partition(b"\\r\\n\\r\\n")
      print(len(rest)); print(head.decode())
      """
    let (output, status) = try await RedisProcess.runDetached(
      "python3", ["-c", script, "\(port)", path, agent])
    #expect(status == 0, "\(output)")
    let lines = output.split(separator: "\r\n").flatMap { $0.split(separator: "\n") }
    guard lines.count >= 2, let bodyBytes = Int(lines[0]),
      let status = Int(lines[1].split(separator: " ").dropFirst().first ?? "")
    else { throw RESPConnection.Failed(description: "HEAD \(path): \(output)") }
    var headers: [String: String] = [:]
    for line in lines.dropFirst(2) {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
        in: .whitespaces)
    }
    return (status, headers, bodyBytes)
  }
}
