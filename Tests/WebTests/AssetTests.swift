import Assets
import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Uploads through ASSET.PUT (RESP) and PUT /v1/assets (HTTP), served at /a/<id>, named by
/// cards, and gone with the cards and accounts that used them.
@Suite("Uploaded assets")
struct AssetTests {
  /// Each kind with the fixtures it takes.
  static let accepted: [(kind: String, file: String, type: String)] = [
    ("IMAGE", "python.jpg", "image/jpeg"), ("IMAGE", "python.png", "image/png"),
    ("IMAGE", "python.webp", "image/webp"), ("LOGO", "python.png", "image/png"),
    ("LOGO", "python.webp", "image/webp"), ("CV", "result.pdf", "application/pdf"),
  ]

  static func files(_ servers: TestDaemon) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: servers.directory + "/media/assets"))
      ?? []).sorted()
  }

  static func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test(
    "ASSET.PUT and PUT /v1/assets store each kind; /a/<id> serves the same bytes with its type, immutable caching, ETag, nosniff, CSP, and a PDF as an attachment"
  )
  func uploads() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, _) = try servers.signedIn("ana@x.org")
    let token = try servers.connect().text("SESSION.OPEN", "ana@x.org", "secret1")
    for (kind, file, type) in Self.accepted {
      let bytes = try MediaFixtures.bytes(file)
      let reply = try ana.command(bytes: [Array("ASSET.PUT".utf8), Array(kind.utf8), bytes])
      guard case .bulkString(let b) = reply.value else {
        Issue.record("\(kind) \(file): \(reply.text)")
        continue
      }
      let viaRESP = try Self.json(String(buffer: b))
      let put = try await servers.fetch(
        "PUT", "/v1/assets?kind=\(kind.lowercased())",
        headers: ["Authorization": "Bearer \(token)"], body: bytes)
      #expect(put.status == 201, "\(kind) \(file): \(put.text)")
      #expect(put.header("Content-Type") == "application/json")
      let viaHTTP = try Self.json(put.text)
      #expect(put.header("Location") == viaHTTP["url"] as? String)
      for asset in [viaRESP, viaHTTP] {
        let id = try #require(asset["id"] as? String)
        #expect(id.count == 32)
        #expect(asset["url"] as? String == "\(TestDaemon.publicURL)/a/\(id)")
        #expect(asset["kind"] as? String == kind.lowercased())
        #expect(asset["contentType"] as? String == type)
        #expect(asset["bytes"] as? Int == bytes.count)
        #expect(asset["width"] as? Int == (kind == "CV" ? nil : 16))
        let got = try await servers.get("/a/\(id)")
        #expect(got.status == 200)
        #expect([UInt8](got.body) == bytes, "\(kind) \(file)")
        #expect(got.header("Content-Type") == type)
        #expect(got.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(got.header("ETag") == "\"\(id)\"")
        #expect(got.header("X-Content-Type-Options") == "nosniff")
        #expect(got.header("Content-Security-Policy") == "default-src 'none'")
        #expect(
          got.header("Content-Disposition")
            == (kind == "CV" ? "attachment; filename=\"cv-\(id).pdf\"" : nil))
        let cached = try await servers.get("/a/\(id)", headers: ["If-None-Match": "\"\(id)\""])
        #expect(cached.status == 304 && cached.body.isEmpty)
      }
      #expect(viaRESP["id"] as? String != viaHTTP["id"] as? String, "ids are not by content")
    }
    #expect(Self.files(servers).count == Self.accepted.count * 2)
    #expect(try await servers.get("/a/00000000000000000000000000000000").status == 404)
    #expect(try await servers.get("/a/..%2Fstore.sqlite").status == 404)
    await servers.stop()
  }

  /// A PNG of `width`×`height` pixels by its IHDR (CRC fixed), the rest of python.png.
  static func pngClaiming(width: UInt32, height: UInt32) throws -> [UInt8] {
    var png = try MediaFixtures.bytes("python.png")
    for (offset, value) in [(16, width), (20, height)] {
      for i in 0..<4 { png[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
    }
    let crc = crc32(png[12..<29])
    for i in 0..<4 { png[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    return png
  }

  static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  @Test(
    "refused over RESP and HTTP, storing nothing: a PNG as CV, a PDF as IMAGE, a GIF, random bytes, truncated files, a PNG header on HTML, an SVG with script as each kind, too many bytes, too many pixels, a bad kind, no sign-in"
  )
  func refusals() async throws {
    var bounds = Assets.Configuration()
    bounds.maxBytes = 4000
    bounds.maxPixels = 1_000_000
    let servers = try await TestDaemon.web(assets: bounds)
    let (ana, _, _) = try servers.signedIn("ana@x.org")
    let token = try servers.connect().text("SESSION.OPEN", "ana@x.org", "secret1")
    let png = try MediaFixtures.bytes("python.png")
    let jpeg = try MediaFixtures.bytes("python.jpg")
    let webp = try MediaFixtures.bytes("python.webp")
    let pdf = try MediaFixtures.bytes("result.pdf")
    var random = SystemRandomNumberGenerator()
    let svg = Array(
      #"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)
    let image = "INVALID an IMAGE must be a JPEG, PNG or WebP image"
    let cases: [(kind: String, bytes: [UInt8], error: String, status: Int)] = [
      ("CV", png, "INVALID a CV must be a PDF", 415),
      ("IMAGE", pdf, image, 415),
      ("LOGO", pdf, "INVALID a LOGO must be a JPEG, PNG or WebP image", 415),
      ("IMAGE", try MediaFixtures.bytes("python.gif"), image, 415),
      ("IMAGE", (0..<2000).map { _ in UInt8.random(in: 0...255, using: &random) }, image, 415),
      ("IMAGE", Array(png.prefix(40)), image, 415),
      ("IMAGE", Array(png.dropLast(12)), image, 415),
      ("IMAGE", Array(jpeg.dropLast(100)), image, 415),
      ("IMAGE", Array(webp.dropLast(10)), image, 415),
      ("CV", Array(pdf.prefix(300)), "INVALID a CV must be a PDF", 415),
      (
        "IMAGE", Array(png.prefix(33)) + Array("<html><script>alert(1)</script></html>".utf8),
        image, 415
      ),
      ("IMAGE", svg, image, 415),
      ("LOGO", svg, "INVALID a LOGO must be a JPEG, PNG or WebP image", 415),
      ("CV", svg, "INVALID a CV must be a PDF", 415),
      ("IMAGE", Array(#"<?xml version="1.0"?>"#.utf8) + svg, image, 415),
      (
        "IMAGE", png + [UInt8](repeating: 0, count: 3000),
        "INVALID an asset must be 1 to 4000 bytes", 413
      ),
      // No body is a malformed request (400), not one too large.
      ("CV", [], "INVALID an asset must be 1 to 4000 bytes", 400),
      (
        "IMAGE", try Self.pngClaiming(width: 50_000, height: 50_000),
        "INVALID the image is 50000×50000 pixels; at most 1000000 pixels are accepted", 422
      ),
      (
        "LOGO", try Self.pngClaiming(width: 1001, height: 1000),
        "INVALID the image is 1001×1000 pixels; at most 1000000 pixels are accepted", 422
      ),
      ("PHOTO", png, "ERR the kind must be IMAGE, LOGO or CV", 400),
    ]
    for (kind, bytes, error, status) in cases {
      let reply = try ana.command(bytes: [Array("ASSET.PUT".utf8), Array(kind.utf8), bytes])
      #expect(reply.text == "-\(error)\r\n", "\(kind) \(bytes.prefix(8))")
      let put = try await servers.fetch(
        "PUT", "/v1/assets?kind=\(kind.lowercased())",
        headers: ["Authorization": "Bearer \(token)"], body: bytes)
      #expect(put.status == status, "\(kind) \(bytes.prefix(8)): \(put.text)")
      #expect(put.header("Content-Type") == "application/json", "\(kind)")
      let body = try JSONSerialization.jsonObject(with: Data(put.body)) as? [String: String]
      #expect(body == ["error": error], "\(kind)")
    }
    // Not signed in.
    #expect(
      try servers.connect().command(bytes: [Array("ASSET.PUT".utf8), Array("IMAGE".utf8), png])
        .text.hasPrefix("-NOAUTH"))
    for headers in [[:], ["Authorization": "Bearer nope"]] {
      let put = try await servers.fetch("PUT", "/v1/assets?kind=image", headers: headers, body: png)
      #expect(put.status == 401)
      #expect(put.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
    }
    #expect(Self.files(servers).isEmpty, "nothing stored: \(Self.files(servers))")
    // The bound itself is accepted.
    let fits = try await servers.fetch(
      "PUT", "/v1/assets?kind=logo", headers: ["Authorization": "Bearer \(token)"],
      body: try Self.pngClaiming(width: 1000, height: 1000))
    #expect(fits.status == 201)
    await servers.stop()
  }

  /// `ASSET.PUT`'s asset URL.
  static func upload(_ c: RESPConnection, _ kind: String, _ file: String) throws -> String {
    let reply = try c.command(
      bytes: [Array("ASSET.PUT".utf8), Array(kind.utf8), try MediaFixtures.bytes(file)])
    guard case .bulkString(let b) = reply.value,
      let url = try Self.json(String(buffer: b))["url"] as? String
    else { throw RESPConnection.Failed(description: "ASSET.PUT: \(reply.text)") }
    return url
  }

  @Test(
    "one account's uploads stop at its quota (QUOTA, 413) and at its hourly limit (LIMIT, 429), over RESP and HTTP; another account's do not"
  )
  func quotas() async throws {
    let size = try MediaFixtures.bytes("python.png").count
    var limits = Assets.Configuration()
    limits.publicURL = TestDaemon.publicURL
    limits.quotaBytes = 3 * size
    limits.uploadsPerHour = 5
    let servers = try await TestDaemon.web(assets: limits)
    let (ana, _, _, token) = try servers.member("ana@x.org")
    for _ in 0..<3 { _ = try Self.upload(ana, "IMAGE", "python.png") }
    let full = try ana.command(
      bytes: [Array("ASSET.PUT".utf8), Array("IMAGE".utf8), try MediaFixtures.bytes("python.png")])
    #expect(full.text == "-QUOTA your uploads use \(3 * size) of your \(3 * size) bytes\r\n")
    let put = try await servers.send(
      "PUT", "/v1/assets?kind=image", token: token,
      body: Data(try MediaFixtures.bytes("python.png")))
    #expect(put.status == 413 && put.error?.hasPrefix("QUOTA") == true, "\(put.status) \(put.text)")
    // Five tries an hour, refused ones included: the sixth is over the limit.
    let limited = try ana.command(
      bytes: [Array("ASSET.PUT".utf8), Array("IMAGE".utf8), try MediaFixtures.bytes("python.png")])
    #expect(limited.text.hasPrefix("-LIMIT at most 5 uploads an hour, retry after "))
    let again = try await servers.send(
      "PUT", "/v1/assets?kind=image", token: token,
      body: Data(try MediaFixtures.bytes("python.png")))
    #expect(again.status == 429, "\(again.status) \(again.text)")
    #expect(Int(again.header("Retry-After") ?? "") ?? 0 > 0, "\(again.text)")
    let (bo, _, _) = try servers.signedIn("bo@x.org")
    #expect(try Self.upload(bo, "IMAGE", "python.png").contains("/a/"))
    await servers.stop()
  }

  @Test(
    "a card names its owner's assets; another's, an unknown one or the wrong kind is refused; deleting a card removes what only it named, deleting the account all"
  )
  func cardsAndDeletion() async throws {
    let servers = try await TestDaemon.web()
    let (ana, anaId, _) = try servers.signedIn("ana@x.org")
    let (bo, _, _) = try servers.signedIn("bo@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(anaId)", "1")
    let picture = try Self.upload(ana, "IMAGE", "python.jpg")
    let logo = try Self.upload(ana, "LOGO", "python.png")
    let cv = try Self.upload(ana, "CV", "result.pdf")
    let boPicture = try Self.upload(bo, "IMAGE", "python.webp")
    #expect(Self.files(servers).count == 4)

    let refused: [(String, String)] = [
      (
        #"{"firstName":"A","imageUrl":"\#(boPicture)"}"#, "INVALID imageUrl: the asset is not yours"
      ),
      (
        #"{"firstName":"A","logoUrl":"\#(TestDaemon.publicURL)/a/0123456789abcdef0123456789abcdef"}"#,
        "INVALID logoUrl: no such asset"
      ),
      (
        #"{"firstName":"A","cvUrl":"\#(picture)"}"#,
        "INVALID cvUrl: the asset's kind is image; this field takes cv"
      ),
      (
        #"{"firstName":"A","imageUrl":"\#(cv)"}"#,
        "INVALID imageUrl: the asset's kind is cv; this field takes image or logo"
      ),
    ]
    for (json, error) in refused {
      #expect(try ana.text("CARD.CREATE", json) == error, "\(json)")
    }
    // Another's upload spelt another way is refused too: only the exact URL names an asset.
    let boID = String(boPicture.split(separator: "/").last!)
    let host = TestDaemon.publicURL.replacingOccurrences(of: "https://", with: "")
    for variant in [
      boPicture + "?", boPicture + "/", boPicture + "?x.png", boPicture + "#x",
      boPicture.uppercased(), "HTTPS://\(host.uppercased())/a/\(boID)",
      "https://\(host):443/a/\(boID)",
      "https://\(host)/x/../a/\(boID)", "https://\(host)/a/./\(boID)",
      "https://\(host)/%61/\(boID)",
      "https://\(host)./a/\(boID)",
    ] {
      let reply = try ana.text("CARD.CREATE", #"{"firstName":"A","imageUrl":"\#(variant)"}"#)
      #expect(reply.hasPrefix("INVALID imageUrl"), "\(variant): \(reply)")
    }
    #expect(try ana.text("CARD.MINE").contains("firstName") == false, "no card was made")

    let both = #"{"firstName":"A","imageUrl":"\#(picture)","logoUrl":"\#(logo)","cvUrl":"\#(cv)"}"#
    let first = try ana.object("CARD.CREATE", both)
    let second = try ana.object("CARD.CREATE", #"{"firstName":"B","imageUrl":"\#(picture)"}"#)
    #expect(first["imageUrl"] as? String == picture)
    #expect(second["imageUrl"] as? String == picture)
    // A patch to another's asset is refused and changes nothing.
    let firstId = "\(first["id"] as? Int ?? 0)"
    #expect(
      try ana.text("CARD.UPDATE", firstId, #"{"logoUrl":"\#(boPicture)"}"#)
        == "INVALID logoUrl: the asset is not yours")
    #expect(try ana.object("CARD.GET", firstId)["logoUrl"] as? String == logo)
    // The page shows the picture and logo from this server, by their paths.
    let page = try await servers.get(URL(string: first["url"] as? String ?? "")!.path)
    #expect(page.text.contains(#"src="\#(URL(string: picture)!.path)""#))
    #expect(page.text.contains(#"src="\#(URL(string: logo)!.path)""#))

    // The first card goes: its logo and CV (only it named them) go; the picture stays.
    #expect(try ana.text("CARD.DEL", firstId) == "1")
    #expect(Self.files(servers).count == 2)
    #expect(try await servers.get(URL(string: logo)!.path).status == 404)
    #expect(try await servers.get(URL(string: cv)!.path).status == 404)
    #expect(try await servers.get(URL(string: picture)!.path).status == 200)
    #expect(try await servers.get(URL(string: boPicture)!.path).status == 200)

    // The account goes: the second card's picture and an upload no card names go too.
    _ = try Self.upload(ana, "LOGO", "python.webp")
    #expect(Self.files(servers).count == 3)
    #expect(try ana.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try await servers.get(URL(string: picture)!.path).status == 404)
    #expect(Self.files(servers).count == 1, "bo's picture only")
    await servers.stop()
  }

  @Test("an upload no card names is swept once older than the time given to claim it")
  func unclaimedSweep() async throws {
    var bounds = Assets.Configuration()
    bounds.unclaimedLifetime = 0
    let servers = try await TestDaemon.web(assets: bounds)
    let (ana, _, _) = try servers.signedIn("ana@x.org")
    let named = try Self.upload(ana, "IMAGE", "python.jpg")
    _ = try ana.object("CARD.CREATE", #"{"firstName":"A","imageUrl":"\#(named)"}"#)
    let unnamed = try Self.upload(ana, "LOGO", "python.png")
    // The next upload sweeps the unnamed one; the named one stays.
    let latest = try Self.upload(ana, "LOGO", "python.webp")
    #expect(try await servers.get(URL(string: unnamed)!.path).status == 404)
    #expect(try await servers.get(URL(string: named)!.path).status == 200)
    #expect(try await servers.get(URL(string: latest)!.path).status == 200)
    #expect(Self.files(servers).count == 2)
    await servers.stop()
  }
}
