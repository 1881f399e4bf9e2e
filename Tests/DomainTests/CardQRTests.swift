import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// CARD.QR through the protocol over real sockets, its images read back by zbarimg.
@Suite("Card QR codes")
struct CardQRTests {
  @Test(
    "CARD.QR answers PNG, JPEG and SVG of the card's share URL at each level, opaque or transparent; zbarimg reads exactly the URL"
  )
  func formats() async throws {
    let server = try await TestDaemon()
    let (ana, _, username) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let card = try ana.object("CARD.CREATE", CardTests.ana)
    let (id, code) = ("\(card["id"] as? Int ?? 0)", card["code"] as? String ?? "")
    let url = try #require(card["url"] as? String)
    #expect(url == "https://cards.test/c/\(username)")
    for format in ["PNG", "JPEG", "SVG"] {
      for level in ["L", "M", "Q", "H"] {
        for transparent in [false, true] {
          let arguments =
            ["CARD.QR", id, format, "SIZE", "300", "ECC", level]
            + (transparent ? ["TRANSPARENT"] : [])
          let image = try ana.image(arguments)
          #expect(try Self.decoded(image, format) == [url], "\(arguments)")
        }
      }
    }
    // Any signed-in account, by id or share code; M and 512 pixels by default.
    for idOrCode in [id, code] {
      let png = try bo.image(["CARD.QR", idOrCode, "png"])
      #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
      #expect(try ImageTools.pngcheck(png).output.contains("512 x 512 image"))
      #expect(try ImageTools.qrTexts(png, ext: "png") == [url])
    }
    let jpeg = try bo.image(["CARD.QR", id, "JPG", "SIZE", "200"])
    #expect(try ImageTools.decodeJPEG(jpeg).map { [$0.width, $0.height] } == [200, 200])
    await server.stop()
  }

  @Test(
    "bad formats, sizes out of 64...2048, bad levels and stray arguments are refused with clear errors"
  )
  func refusals() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let id = "\(try ana.object("CARD.CREATE", CardTests.ana)["id"] as? Int ?? 0)"
    let cases: [([String], String)] = [
      (["GIF"], "ERR the format must be PNG, SVG or JPEG"),
      (["PNG", "SIZE", "63"], "ERR SIZE 63 is out of range (64 to 2048 pixels)"),
      (["PNG", "SIZE", "2049"], "ERR SIZE 2049 is out of range (64 to 2048 pixels)"),
      (["SVG", "SIZE", "1000000000"], "ERR SIZE 1000000000 is out of range (64 to 2048 pixels)"),
      (["JPEG", "SIZE", "-5"], "ERR SIZE -5 is out of range (64 to 2048 pixels)"),
      (["PNG", "SIZE", "99999999999999999999999"], "ERR value is not an integer or out of range"),
      (["PNG", "SIZE", "big"], "ERR value is not an integer or out of range"),
      (["PNG", "SIZE"], "ERR syntax error"),
      (["PNG", "ECC", "X"], "ERR ECC must be L, M, Q or H"),
      (["PNG", "ECC"], "ERR syntax error"),
      (["PNG", "OPAQUE"], "ERR syntax error"),
    ]
    for (arguments, error) in cases {
      #expect(try ana.text(["CARD.QR", id] + arguments) == error, "\(arguments)")
    }
    #expect(try ana.text("CARD.QR", id).hasPrefix("ERR wrong number of arguments"))
    #expect(try ana.text("CARD.QR", "999", "PNG") == "NOTFOUND no such card")
    #expect(try server.connect().text("CARD.QR", id, "PNG").hasPrefix("NOAUTH"))
    await server.stop()
  }

  @Test(
    "an inactive card has no QR code, for its owner (INACTIVE) or anyone else (NOTFOUND); Pro again brings it back"
  )
  func inactive() async throws {
    let server = try await TestDaemon()
    let (ana, id, username) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    _ = try ana.object("CARD.CREATE", CardTests.ana)
    let second = try ana.object("CARD.CREATE", #"{"firstName":"Ana","company":"Side"}"#)
    let (secondID, code) = ("\(second["id"] as? Int ?? 0)", second["code"] as? String ?? "")
    let url = "https://cards.test/c/\(username)/\(second["slug"] as? String ?? "")"
    // Off the map, it reads by its code for another account, not by its id (CARD.GET's rule).
    #expect(try ImageTools.qrTexts(try bo.image(["CARD.QR", code, "PNG"]), ext: "png") == [url])
    #expect(try bo.text("CARD.QR", secondID, "PNG") == "NOTFOUND no such card")

    _ = try admin.object("ACCOUNT.PRO", "\(id)", "0")
    #expect(try ana.text("CARD.QR", secondID, "PNG") == "INACTIVE the card is no longer active")
    #expect(try ana.text("CARD.QR", secondID, "SVG") == "INACTIVE the card is no longer active")
    #expect(try bo.text("CARD.QR", secondID, "PNG") == "NOTFOUND no such card")
    #expect(try bo.text("CARD.QR", code, "JPEG") == "NOTFOUND no such card")

    _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
    #expect(try ImageTools.qrTexts(try bo.image(["CARD.QR", code, "JPEG"]), ext: "jpg") == [url])
    await server.stop()
  }

  @Test("redis-cli and redis-py fetch a card's QR code: SVG text and PNG bytes that zbarimg reads")
  func realClients() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let card = try ana.object("CARD.CREATE", CardTests.ana)
    let (id, url) = ("\(card["id"] as? Int ?? 0)", card["url"] as? String ?? "")
    let (svg, status) = try RedisProcess.run(
      "redis-cli",
      [
        "-p", "\(server.port)", "--user", "ana@x.org", "--pass", "secret1", "--no-auth-warning",
        "CARD.QR", id, "SVG", "SIZE", "256", "TRANSPARENT",
      ])
    #expect(status == 0)
    #expect(svg.contains(#"shape-rendering="crispEdges""#) && !svg.contains("<rect"))
    let png = try ImageTools.svgToPNG(Array(svg.utf8))
    #expect(try ImageTools.qrTexts(png, ext: "png") == [url])

    let (output, pyStatus) = try RedisProcess.run(
      "python3",
      [
        "-c",
        """
        import sys, redis
        r = redis.Redis(port=int(sys.argv[1]), username='ana@x.org', password='secret1')
        sys.stdout.write(r.execute_command('CARD.QR', sys.argv[2], 'PNG', 'ECC', 'H').hex())
        """,
        "\(server.port)", id,
      ])
    #expect(pyStatus == 0, "\(output)")
    let bytes = stride(from: 0, to: output.count - 1, by: 2).compactMap { i -> UInt8? in
      let start = output.index(output.startIndex, offsetBy: i)
      return UInt8(output[start...output.index(after: start)], radix: 16)
    }
    #expect(try ImageTools.pngcheck(bytes).ok)
    #expect(try ImageTools.qrTexts(bytes, ext: "png") == [url])
    await server.stop()
  }

  static func decoded(_ image: [UInt8], _ format: String) throws -> [String] {
    switch format {
    case "PNG":
      #expect(try ImageTools.pngcheck(image).ok)
      return try ImageTools.qrTexts(image, ext: "png")
    case "JPEG":
      #expect(try ImageTools.decodeJPEG(image) != nil)
      return try ImageTools.qrTexts(image, ext: "jpg")
    default:
      return try ImageTools.qrTexts(try ImageTools.svgToPNG(image), ext: "png")
    }
  }
}

extension RESPConnection {
  /// A bulk string reply's bytes: an image.
  func image(_ arguments: [String]) throws -> [UInt8] {
    let reply = try command(arguments)
    guard case .bulkString(let b) = reply.value else {
      throw RESPConnection.Failed(description: "\(arguments): \(reply.text)")
    }
    return Array(b.readableBytesView)
  }
}
