import Foundation
import FoundationNetworking
import RESP
import RedisTestSupport
import Testing

/// The web side of nodes over one PostgreSQL: once loaded, a node's `--http-port` serves the
/// card pages, the vCards and the uploads of every node's writes, beside the probes.
@Suite("The web side across nodes over PostgreSQL", .serialized)
struct WebAcrossNodesTests {
  static let synced = AccountsAcrossNodesTests.synced

  /// The path of a URL the node wrote with its public base (`http://127.0.0.1:8080`).
  static func path(_ url: String) -> String {
    URLComponents(string: url)?.path ?? url
  }

  static func bytes(_ port: UInt16, _ path: String) async -> (Int, [UInt8])? {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    guard
      let (body, response) = try? await session.data(
        from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    else { return nil }
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, Array(body))
  }

  @Test(
    "a card and an upload made on A are served by B's HTTP port: the card page, its vCard and the upload's bytes; B's probes answer there too"
  )
  func pagesTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let http = try RedisProcess.freeLoopbackPort()
      let b = try CardAtlasProcess(
        directory: directory + "/b", arguments: ["--store", url, "--http-port", "\(http)"])
      let ana = try RESPConnection(port: a.port)
      _ = try ana.signUp("ana@x.org")
      let png = try MediaFixtures.bytes("python.png")
      let upload = try ana.command(bytes: [Array("ASSET.PUT".utf8), Array("LOGO".utf8), png])
      guard case .bulkString(let json) = upload.value,
        let object = try JSONSerialization.jsonObject(with: Data(String(buffer: json).utf8))
          as? [String: Any], let logo = object["url"] as? String
      else {
        Issue.record("ASSET.PUT answered \(upload.text)")
        return
      }
      let card = try ana.object(
        "CARD.CREATE", #"{"firstName":"Ana","company":"Acme","logoUrl":"\#(logo)"}"#)
      let page = try #require(card["url"] as? String)
      try await Self.synced(a.port, b.port)

      var served: (Int, [UInt8])?
      for _ in 0..<100 {
        served = await Self.bytes(http, Self.path(page))
        if served?.0 == 200 { break }
        try await Task.sleep(for: .milliseconds(50))
      }
      let html = String(decoding: served?.1 ?? [], as: UTF8.self)
      #expect(served?.0 == 200 && html.contains("Acme"), "status \(String(describing: served?.0))")
      let vcard = await Self.bytes(http, Self.path(page) + "/card.vcf")
      let vcardText = String(decoding: vcard?.1 ?? [], as: UTF8.self)
      #expect(vcard?.0 == 200 && vcardText.contains("ORG:Acme"), "\(vcardText)")
      let bytes = await Self.bytes(http, Self.path(logo))
      #expect(bytes?.0 == 200 && bytes?.1 == png, "the upload's bytes, read on B")
      let alive = await NodesOverRESPTests.get(http, "/healthz")
      let ready = await NodesOverRESPTests.get(http, "/readyz")
      #expect(alive?.0 == 200 && ready?.0 == 200)
    }
  }
}
