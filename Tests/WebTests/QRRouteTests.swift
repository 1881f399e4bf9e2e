import DaemonTestSupport
import Foundation
import RedisTestSupport
import Testing

/// The QR endpoints over real HTTP: what zbarimg reads back, and every refusal's status.
@Suite("QR codes over HTTP")
struct QRRouteTests {
  static let card = #"{"firstName":"Ana","lastName":"Lima"}"#

  /// The texts zbarimg reads from an image of the format of `ext`.
  static func decoded(_ body: Data, _ ext: String) throws -> [String] {
    let bytes = [UInt8](body)
    switch ext {
    case "svg": return try ImageTools.qrTexts(try ImageTools.svgToPNG(bytes), ext: "png")
    case "png":
      #expect(try ImageTools.pngcheck(bytes).ok)
      return try ImageTools.qrTexts(bytes, ext: "png")
    default:
      #expect(try ImageTools.decodeJPEG(bytes) != nil)
      return try ImageTools.qrTexts(bytes, ext: "jpg")
    }
  }

  @Test(
    "/c/<user>/qr.png|svg|jpg and /c/<user>/<slug>/qr.* decode to exactly the share URL at each level, opaque or transparent, with Content-Type, caching headers and 304"
  )
  func cardCodes() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    _ = try servers.connect().object("ACCOUNT.PRO", "\(id)", "1")
    let url = try #require(try ana.object("CARD.CREATE", Self.card)["url"] as? String)
    #expect(url == "\(TestDaemon.publicURL)/c/\(username)")
    let second = try ana.object("CARD.CREATE", Self.card)
    let slug = try #require(second["slug"] as? String)
    let secondURL = try #require(second["url"] as? String)
    #expect(secondURL == "\(TestDaemon.publicURL)/c/\(username)/\(slug)")

    let types = ["png": "image/png", "svg": "image/svg+xml", "jpg": "image/jpeg"]
    for ext in ["png", "svg", "jpg"] {
      for level in ["L", "M", "Q", "H"] {
        for transparent in ["0", "1"] {
          let path = "/c/\(username)/qr.\(ext)?size=300&ecc=\(level)&transparent=\(transparent)"
          let got = try await servers.get(path)
          #expect(got.status == 200, "\(path)")
          #expect(got.header("Content-Type") == types[ext], "\(path)")
          #expect(try Self.decoded(got.body, ext) == [url], "\(path)")
        }
      }
      let other = try await servers.get("/c/\(username)/\(slug)/qr.\(ext)")
      #expect(other.status == 200)
      #expect(try Self.decoded(other.body, ext) == [secondURL])
    }

    // Defaults: 512 pixels; headers for a cache that checks again; 304 for the same code.
    let png = try await servers.get("/c/\(username)/qr.png")
    #expect(try ImageTools.pngcheck([UInt8](png.body)).output.contains("512 x 512 image"))
    #expect(png.header("Cache-Control") == "public, no-cache")
    #expect(png.header("X-Content-Type-Options") == "nosniff")
    #expect(png.header("Content-Security-Policy") == "default-src 'none'")
    #expect(png.header("Content-Disposition") == "inline; filename=\"\(username)-qr.png\"")
    let tag = try #require(png.header("ETag"))
    let again = try await servers.get("/c/\(username)/qr.png", headers: ["If-None-Match": tag])
    #expect(again.status == 304 && again.body.isEmpty)
    let larger = try await servers.get("/c/\(username)/qr.png?size=600")
    #expect(larger.header("ETag") != tag)
    let jpeg = try await servers.get("/c/\(username)/qr.jpeg?size=200")
    #expect(
      try ImageTools.decodeJPEG([UInt8](jpeg.body)).map { [$0.width, $0.height] } == [200, 200])
    await servers.stop()
  }

  @Test(
    "an inactive card's code is 410 as its page, unknown ones and a placeholder 404, bad parameters 400 with a clear message; never an image"
  )
  func refusals() async throws {
    let servers = try await TestDaemon.web()
    let (ana, id, username) = try servers.signedIn("ana@x.org")
    let admin = try servers.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    let first = try ana.object("CARD.CREATE", Self.card)
    let slug = try #require(try ana.object("CARD.CREATE", Self.card)["slug"] as? String)

    let bad: [(String, String)] = [
      ("size=63", "SIZE 63 is out of range (64 to 2048 pixels)"),
      ("size=2049", "SIZE 2049 is out of range (64 to 2048 pixels)"),
      ("size=99999999999999999999999", "size must be a whole number of pixels"),
      ("size=big", "size must be a whole number of pixels"),
      ("ecc=X", "ECC must be L, M, Q or H"),
      ("transparent=yes", "transparent must be 1 or 0"),
    ]
    for (query, message) in bad {
      let got = try await servers.get("/c/\(username)/qr.png?\(query)")
      #expect(got.status == 400, "\(query)")
      #expect(got.text == message + "\n", "\(query)")
    }

    // Pro ends: the second card is inactive (410, as its page); the primary still has one.
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "0")
    let inactive = try await servers.get("/c/\(username)/\(slug)/qr.svg")
    #expect(inactive.status == 410)
    #expect(inactive.header("Content-Type") == "text/html; charset=utf-8")
    #expect(inactive.text.contains("This card is no longer active."))
    #expect(try await servers.get("/c/\(username)/qr.svg").status == 200)

    for path in ["/c/nobody/qr.png", "/c/\(username)/zzz/qr.png", "/c/nobody/abc/qr.jpg"] {
      let got = try await servers.get(path)
      #expect(got.status == 404, "\(path)")
      #expect(got.header("Content-Type") == "text/html; charset=utf-8", "\(path)")
    }
    // A deleted primary card's URL shows a placeholder page, but has no code to give.
    #expect(try ana.text("CARD.DEL", "\(first["id"] as? Int ?? 0)") == "1")
    #expect(try await servers.get("/c/\(username)").status == 200)
    let placeholder = try await servers.get("/c/\(username)/qr.png")
    #expect(placeholder.status == 404)
    #expect(placeholder.header("Content-Type") == "text/html; charset=utf-8")
    await servers.stop()
  }

  @Test(
    "/v/<venue>/qr.* decodes to the check-in page's link for its owner's Bearer token; 401 without one or with a bad one, 403 for another account, 404 for none"
  )
  func venueCodes() async throws {
    let servers = try await TestDaemon.web()
    let (ana, _, _) = try servers.signedIn("ana@x.org")
    _ = try servers.signedIn("bo@x.org")
    let venue = try ana.object("VENUE.CREATE", #"{"name":"Cafe","lon":2.35,"lat":48.85}"#)
    let id = try #require(venue["id"] as? Int)
    let code = try ana.text("VENUE.CODE", "\(id)")
    let session = try servers.connect()
    let anaToken = try session.text("SESSION.OPEN", "ana@x.org", "secret1")
    let boToken = try session.text("SESSION.OPEN", "bo@x.org", "secret1")
    let owner = ["Authorization": "Bearer \(anaToken)"]
    // What a phone's camera opens: the venue's check-in page.
    func link(_ code: String) -> String { TestDaemon.publicURL + "/v/" + code }

    for ext in ["png", "svg", "jpg"] {
      let got = try await servers.get("/v/\(id)/qr.\(ext)?ecc=H&size=400", headers: owner)
      #expect(got.status == 200, "\(ext)")
      #expect(got.header("Cache-Control") == "private, no-cache")
      #expect(try Self.decoded(got.body, ext) == [link(code)], "\(ext)")
    }
    let transparent = try await servers.get("/v/\(id)/qr.png?transparent=1", headers: owner)
    #expect(try Self.decoded(transparent.body, "png") == [link(code)])
    // A rotated code is a new image.
    let rotated = try ana.text("VENUE.ROTATE", "\(id)")
    let after = try await servers.get("/v/\(id)/qr.png", headers: owner)
    #expect(try Self.decoded(after.body, "png") == [link(rotated)])

    let anonymous = try await servers.get("/v/\(id)/qr.png")
    #expect(anonymous.status == 401)
    #expect(anonymous.header("WWW-Authenticate") == "Bearer")
    #expect(anonymous.header("Content-Type") == "text/plain; charset=utf-8")
    let forged = try await servers.get("/v/\(id)/qr.png", headers: ["Authorization": "Bearer x"])
    #expect(forged.status == 401)
    let other = try await servers.get(
      "/v/\(id)/qr.png", headers: ["Authorization": "Bearer \(boToken)"])
    #expect(other.status == 403)
    #expect(other.text == "the venue is not yours\n")
    let unknown = try await servers.get("/v/999/qr.png", headers: owner)
    #expect(unknown.status == 404 && unknown.text == "no such venue\n")
    #expect(try await servers.get("/v/abc/qr.svg", headers: owner).status == 404)
    #expect(try await servers.get("/v/\(id)/qr.png?size=10", headers: owner).status == 400)
    await servers.stop()
  }
}
