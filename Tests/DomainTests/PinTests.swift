import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Photo pins through the protocol: each rule of PIN.ADD, PIN.PHOTO, PIN.OPEN, PIN.VOTE,
/// PIN.TOP and PIN.DEL, what is refused storing nothing, and what never leaks.
@Suite("Photo pins")
struct PinTests {
  @Test("PIN.ADD answers the pin as the caller's, radius in metres, caption and takenAt")
  func add() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (c, id, username) = try server.signedIn("ana@x.org")
    let pin = try c.object(
      "PIN.ADD", "2.35", "48.85", "0.5", "km",
      #"{"caption":"Pont Neuf at dusk","takenAt":"2026-06-01T19:30:00Z"}"#)
    #expect(pin["ownerId"] as? Int == id)
    #expect(pin["owner"] as? String == username)
    #expect(pin["lon"] as? Double == 2.35 && pin["lat"] as? Double == 48.85)
    #expect(pin["radius"] as? Int == 500)
    #expect(pin["caption"] as? String == "Pont Neuf at dusk")
    #expect(pin["takenAt"] as? String == "2026-06-01T19:30:00Z")
    #expect(pin["score"] as? Int == 0 && pin["hasPhoto"] as? Bool == false)
    #expect(pin["photo"] == nil)
    let pinId = pin["id"] as? Int ?? 0
    #expect(try c.object("PIN.GET", "\(pinId)")["caption"] as? String == "Pont Neuf at dusk")
    // Units and the range's ends: 10 m and 50 km are allowed; 1 mi is 1609 whole metres.
    #expect(try c.object("PIN.ADD", "0", "0", "10", "m", "{}")["radius"] as? Int == 10)
    #expect(try c.object("PIN.ADD", "0", "0", "50", "KM", "{}")["radius"] as? Int == 50_000)
    #expect(try c.object("PIN.ADD", "0", "0", "1", "mi", "{}")["radius"] as? Int == 1609)
    // At the poles and the antimeridian.
    #expect(try c.object("PIN.ADD", "180", "90", "100", "m", "{}")["lat"] as? Int == 90)
    #expect(try c.object("PIN.ADD", "-180", "-90", "100", "m", "{}")["lon"] as? Int == -180)
    // Not signed in.
    let anonymous = try server.connect()
    #expect(try anonymous.text("PIN.ADD", "0", "0", "100", "m", "{}").hasPrefix("NOAUTH"))
    await server.stop()
  }

  @Test("bad input is refused with a clear error and stores nothing, across a restart too")
  func badInput() async throws {
    let server = try await TestDaemon(pins: { $0.maxPhotoBytes = 4096 })
    let (c, _, _) = try server.signedIn("ana@x.org")
    let id = try c.pin(10, 10, 100)
    let refused: [([String], String)] = [
      (["nan", "10", "100", "m", "{}"], "INVALID location"),
      (["10", "nan", "100", "m", "{}"], "INVALID location"),
      (["inf", "10", "100", "m", "{}"], "INVALID location"),
      (["180.5", "10", "100", "m", "{}"], "INVALID location"),
      (["10", "-90.01", "100", "m", "{}"], "INVALID location"),
      (["x", "10", "100", "m", "{}"], "INVALID location"),
      (["10", "10", "9.99", "m", "{}"], "INVALID radius"),
      (["10", "10", "50.001", "km", "{}"], "INVALID radius"),
      (["10", "10", "-100", "m", "{}"], "INVALID radius"),
      (["10", "10", "nan", "m", "{}"], "INVALID radius"),
      (["10", "10", "100", "parsecs", "{}"], "ERR unsupported unit"),
      (["10", "10", "100", "m", "{"], "INVALID json"),
      (["10", "10", "100", "m", "[1]"], "INVALID json"),
      (["10", "10", "100", "m", "\"text\""], "INVALID json"),
      (["10", "10", "100", "m", #"{"photo":"x"}"#], "INVALID photo"),
      (["10", "10", "100", "m", #"{"caption":7}"#], "INVALID caption"),
      (
        ["10", "10", "100", "m", "{\"caption\":\"\(String(repeating: "a", count: 501))\"}"],
        "INVALID caption"
      ),
      (["10", "10", "100", "m", #"{"takenAt":"yesterday"}"#], "INVALID takenAt"),
      (["10", "10", "100", "m", #"{"takenAt":"2999-01-01T00:00:00Z"}"#], "INVALID takenAt"),
    ]
    for (arguments, error) in refused {
      let reply = try c.text(["PIN.ADD"] + arguments)
      #expect(reply.hasPrefix(error), "\(arguments): \(reply)")
    }
    let badPhotos: [[UInt8]] = [
      [],
      Array("just some text, not an image".utf8),
      // A PNG signature without its header; a JPEG whose frame runs past the end.
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13],
      [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x40, 0x08],
      // A PNG whose header's CRC is wrong.
      TestPhoto.png().enumerated().map { $0.offset == 29 ? 0 : $0.element },
      // A whole PDF: a document, not a photo.
      Array("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".utf8),
      // A real JPEG header, over the size limit.
      TestPhoto.jpeg([UInt8](repeating: 7, count: 4096)),
      // Real images of kinds pins do not take, and a real PDF.
      try MediaFixtures.bytes("python.webp"), try MediaFixtures.bytes("python.gif"),
      try MediaFixtures.bytes("result.pdf"),
    ]
    for bytes in badPhotos {
      let reply = try c.photo(id, bytes).value
      #expect(reply.textValue.hasPrefix("INVALID photo"), "\(bytes.prefix(12)): \(reply)")
    }
    #expect(try c.text("PIN.VOTE", "\(id)", "SIDEWAYS").hasPrefix("ERR"))
    #expect(try c.text("PIN.OPEN", "\(id)", "nan", "0").hasPrefix("INVALID location"))
    #expect(try c.text("PIN.AT", "0", "91").hasPrefix("INVALID location"))
    #expect(try c.text("PIN.TOP", "0", "0", "1", "km", "COUNT", "0").hasPrefix("ERR"))
    func stored() throws -> [Int] {
      try c.hitIds("PIN.SEARCH", "BOUNDS", "-180", "-90", "180", "90")
    }
    #expect(try stored() == [id])
    #expect(try c.object("PIN.GET", "\(id)")["hasPhoto"] as? Bool == false)
    #expect(try await server.photoFiles(reaching: 0).isEmpty)
    try await server.restart()
    let again = try server.connect()
    #expect(try again.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try again.hitIds("PIN.SEARCH", "BOUNDS", "-180", "-90", "180", "90") == [id])
    await server.stop()
  }

  @Test("PIN.PHOTO: the owner's JPEG or PNG; others get NOPERM; replacing removes the old file")
  func photos() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let id = try ana.pin(2.35, 48.85, 200)
    // Real files: a JPEG and a PNG made by an image library.
    let real = try ana.photo(id, MediaFixtures.bytes("python.jpg")).value.textValue
    #expect(real.contains(#""type":"image/jpeg""#), "\(real)")
    #expect(try bo.open(id, 2.35, 48.85) == MediaFixtures.bytes("python.jpg"))
    let realPNG = try ana.photo(id, MediaFixtures.bytes("python.png")).value.textValue
    #expect(realPNG.contains(#""type":"image/png""#), "\(realPNG)")
    let jpeg = TestPhoto.jpeg()
    guard case .bulkString(let b) = try ana.photo(id, jpeg).value,
      let pin = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
        as? [String: Any]
    else { throw RESPConnection.Failed(description: "PIN.PHOTO") }
    #expect(pin["hasPhoto"] as? Bool == true)
    let photo = pin["photo"] as? [String: Any]
    #expect(photo?["type"] as? String == "image/jpeg")
    #expect(photo?["width"] as? Int == 32 && photo?["height"] as? Int == 16)
    #expect(photo?["bytes"] as? Int == jpeg.count)
    #expect(try await server.photoFiles(reaching: 1).count == 1)
    // Another account may neither set the photo nor delete the pin.
    #expect(try bo.photo(id, TestPhoto.png()).value.textValue.hasPrefix("NOPERM"))
    #expect(try bo.text("PIN.DEL", "\(id)").hasPrefix("NOPERM"))
    #expect(try bo.open(id, 2.35, 48.85) == jpeg)
    // A PNG replaces the JPEG: one file, the new one.
    let png = TestPhoto.png()
    #expect(try ana.photo(id, png).value.textValue.contains("image/png"))
    #expect(try await server.photoFiles(reaching: 1).count == 1)
    #expect(try bo.open(id, 2.35, 48.85) == png)
    // Deleted by its owner: the row and the file go.
    #expect(try ana.text("PIN.DEL", "\(id)") == "1")
    #expect(try await server.photoFiles(reaching: 0).isEmpty)
    #expect(try ana.text("PIN.GET", "\(id)").hasPrefix("NOTFOUND"))
    #expect(try ana.text("PIN.DEL", "\(id)").hasPrefix("NOTFOUND"))
    #expect(try ana.photo(id, png).value.textValue.hasPrefix("NOTFOUND"))
    #expect(try await server.photoFiles(reaching: 0).isEmpty)
    await server.stop()
  }

  @Test("PIN.OPEN: the photo only from inside the circle, else NOTINRANGE and metres to the edge")
  func open() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let id = try ana.pin(13.4, 52.5, 1000)
    #expect(try bo.text("PIN.OPEN", "\(id)", "13.4", "52.5").hasPrefix("NOTFOUND"))
    let photo = TestPhoto.png(Array("the Spree at noon".utf8))
    _ = try ana.photo(id, photo)
    // 0.01° of latitude is about 1112 m: 112 m beyond the edge.
    for (lat, inside) in [(52.5, true), (52.508, true), (52.51, false), (52.6, false)] {
      let d = pinDistance(from: (13.4, lat), to: (13.4, 52.5))
      let reply = try bo.command("PIN.OPEN", "\(id)", "13.4", "\(lat)").value
      if inside {
        #expect(reply.bytes == photo)
      } else {
        #expect(reply.textValue == "NOTINRANGE \(Int((d - 1000).rounded(.up)))")
      }
    }
    #expect(try bo.text("PIN.OPEN", "999", "13.4", "52.5").hasPrefix("NOTFOUND"))
    await server.stop()
  }

  @Test("photos never come through PIN.SEARCH, PIN.AT, PIN.TOP or PIN.GET")
  func privacy() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let marker = Array("SECRET-PIXELS-0123456789".utf8)
    let id = try ana.pin(-0.12, 51.5, 300)
    _ = try ana.photo(id, TestPhoto.jpeg(marker))
    let file = try #require(try await server.photoFiles().first)
    let queries: [[String]] = [
      [
        "PIN.SEARCH", "FROMLONLAT", "-0.12", "51.5", "BYRADIUS", "1", "km", "WITHDIST", "WITHCOORD",
      ],
      ["PIN.SEARCH", "BOUNDS", "-180", "-90", "180", "90"],
      ["PIN.SEARCH", "FROMPIN", "\(id)", "NEAREST", "5"],
      ["PIN.AT", "-0.12", "51.5"],
      ["PIN.TOP", "-0.12", "51.5", "1", "km"],
      ["PIN.GET", "\(id)"],
    ]
    for query in queries {
      let raw = try bo.command(query).raw
      #expect(raw.count > 20, "\(query)")
      #expect(!raw.contains(marker), "\(query) leaked the photo")
      #expect(!String(decoding: raw, as: UTF8.self).contains(file.prefix(32)), "\(query)")
      #expect(String(decoding: raw, as: UTF8.self).contains("\"hasPhoto\":true"), "\(query)")
    }
    await server.stop()
  }

  @Test(
    "PIN.VOTE: one vote per account, changeable and withdrawn, none by the pin's owner; score = ups − downs; kept"
  )
  func votes() async throws {
    let server = try await TestDaemon(pins: { _ in })
    var voters: [RESPConnection] = []
    for i in 0..<4 { voters.append(try server.signedIn("v\(i)@x.org").0) }
    let a = try voters[0].pin(1, 1, 500)
    let b = try voters[0].pin(1.001, 1, 500)
    func score(_ id: Int) throws -> Int {
      try voters[3].object("PIN.GET", "\(id)")["score"] as? Int ?? .min
    }
    #expect(
      try voters[0].text("PIN.VOTE", "\(a)", "UP") == "NOPERM you cannot vote on your own pin")
    #expect(try voters[1].object("PIN.VOTE", "\(a)", "UP")["score"] as? Int == 1)
    // The same vote again counts once.
    #expect(try voters[1].object("PIN.VOTE", "\(a)", "up")["score"] as? Int == 1)
    #expect(try voters[2].object("PIN.VOTE", "\(a)", "UP")["score"] as? Int == 2)
    // Changed: up to down.
    let changed = try voters[1].object("PIN.VOTE", "\(a)", "DOWN")
    #expect(changed["score"] as? Int == 0 && changed["ups"] as? Int == 1)
    #expect(changed["downs"] as? Int == 1)
    #expect(try voters[3].object("PIN.VOTE", "\(b)", "DOWN")["score"] as? Int == -1)
    #expect(try voters[2].object("PIN.VOTE", "\(b)", "UP")["score"] as? Int == 0)
    #expect(try voters[1].object("PIN.VOTE", "\(b)", "UP")["score"] as? Int == 1)
    // Withdrawn.
    #expect(try voters[1].object("PIN.VOTE", "\(a)", "NONE")["score"] as? Int == 1)
    #expect(try voters[1].text("PIN.VOTE", "999", "UP").hasPrefix("NOTFOUND"))
    // PIN.TOP: best score first (b 1, a 1: then the nearer), and the searches show the score.
    #expect(try voters[3].hitIds("PIN.TOP", "1", "1", "10", "km") == [a, b])
    #expect(try voters[3].object("PIN.VOTE", "\(a)", "DOWN")["score"] as? Int == 0)
    #expect(try voters[3].hitIds("PIN.TOP", "1", "1", "10", "km") == [b, a])
    #expect(try voters[3].hitIds("PIN.TOP", "1", "1", "10", "km", "COUNT", "1") == [b])
    #expect(try voters[3].hitIds("PIN.TOP", "1.2", "1", "1", "km").isEmpty)
    try await server.restart()
    voters[3] = try server.connect()
    #expect(try voters[3].text("AUTH", "v3@x.org", "secret1") == "OK")
    #expect(try score(a) == 0 && score(b) == 1)
    // The change after the restart still counts one vote per account.
    #expect(try voters[3].object("PIN.VOTE", "\(b)", "UP")["score"] as? Int == 3)
    await server.stop()
  }

  @Test(
    "at startup the photo files no pin names are removed, and the named ones kept",
    .enabled(
      if: !TestDaemon.overPostgres,
      "files on disk are the embedded store's: PostgreSQL commits the bytes with their row"))
  func sweep() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let id = try ana.pin(7, 7, 100)
    let photo = TestPhoto.png()
    _ = try ana.photo(id, photo)
    let kept = try #require(try await server.photoFiles().first)
    // What a crash leaves: a whole file whose row never committed, and a partly written one.
    let media = server.directory + "/media/pins/"
    for name in [String(repeating: "ab", count: 16) + ".jpg", ".partial-0123.png"] {
      #expect(FileManager.default.createFile(atPath: media + name, contents: Data([1, 2, 3])))
    }
    #expect(try await server.photoFiles(reaching: 3).count == 3)
    try await server.restart()
    #expect(try await server.photoFiles(reaching: 1) == [kept])
    let again = try server.connect()
    #expect(try again.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try again.open(id, 7, 7) == photo)
    await server.stop()
  }

  @Test("a deleted account's pins, photos and votes go")
  func accountDeletion() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let mine = try ana.pin(5, 5, 100)
    _ = try ana.photo(mine, TestPhoto.jpeg())
    let theirs = try bo.pin(5, 5.001, 100)
    _ = try bo.photo(theirs, TestPhoto.png())
    _ = try ana.object("PIN.VOTE", "\(theirs)", "UP")
    #expect(try await server.photoFiles(reaching: 2).count == 2)
    #expect(try ana.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try bo.text("PIN.GET", "\(mine)").hasPrefix("NOTFOUND"))
    #expect(try bo.object("PIN.GET", "\(theirs)")["score"] as? Int == 0)
    #expect(try await server.photoFiles(reaching: 1).count == 1)
    await server.stop()
  }

  @Test("PIN.SEARCH has CARD.SEARCH's grammar: radius, box, nearest, bounds, owner, cursor")
  func search() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (ana, _, anaName) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    var ids: [Int: (Double, Double)] = [:]
    var owner: [Int: String] = [:]
    for i in 0..<30 {
      let (c, name) = i % 2 == 0 ? (ana, anaName) : (bo, "bo")
      let p = (2.3 + Double(i % 6) * 0.01, 48.8 + Double(i / 6) * 0.01)
      let id = try c.pin(p.0, p.1, 50)
      ids[id] = p
      owner[id] = name
    }
    let centre = (2.33, 48.82)
    func expected(within r: Double) -> [Int] {
      ids.map { ($0.key, pinDistance(from: centre, to: $0.value)) }.filter { $0.1 <= r }
        .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
    }
    #expect(
      try bo.hitIds("PIN.SEARCH", "FROMLONLAT", "2.33", "48.82", "BYRADIUS", "1.5", "km")
        == expected(within: 1500))
    #expect(
      try bo.hitIds("PIN.SEARCH", "FROMLONLAT", "2.33", "48.82", "NEAREST", "4")
        == Array(expected(within: .infinity).prefix(4)))
    #expect(
      try bo.hitIds("PIN.SEARCH", "FROMLONLAT", "2.33", "48.82", "BYRADIUS", "1.5", "km", "DESC")
        == expected(within: 1500).reversed())
    let first = expected(within: .infinity)[0]
    #expect(try bo.hitIds("PIN.SEARCH", "FROMPIN", "\(first)", "NEAREST", "1") == [first])
    #expect(
      try bo.hitIds("PIN.SEARCH", "BOUNDS", "-180", "-90", "180", "90").sorted()
        == ids.keys.sorted())
    let anas = expected(within: .infinity).filter { owner[$0] == anaName }
    #expect(
      try bo.hitIds(
        "PIN.SEARCH", "FROMLONLAT", "2.33", "48.82", "NEAREST", "3", "FILTER", "owner", anaName)
        == Array(anas.prefix(3)))
    // Pages of 7 cover the radius's pins once each, in order.
    var paged: [Int] = []
    var cursor = "0"
    repeat {
      guard
        case .array(let page) = try bo.command(
          "PIN.SEARCH", "FROMLONLAT", "2.33", "48.82", "BYRADIUS", "2", "km", "COUNT", "7",
          "CURSOR", cursor
        ).value, page.count == 2, case .array(let rows) = page[1]
      else { throw RESPConnection.Failed(description: "paged search") }
      cursor = page[0].textValue
      for case .array(let fields) in rows {
        if case .integer(let id) = fields[0] { paged.append(id) }
      }
    } while cursor != "0"
    #expect(paged == expected(within: 2000))
    // WITHDIST in the unit asked for.
    guard
      case .array(let rows) = try bo.command(
        "PIN.SEARCH", "FROMLONLAT", "2.33", "48.82", "NEAREST", "1", "WITHDIST"
      ).value,
      case .array(let hit) = rows.first
    else { throw RESPConnection.Failed(description: "WITHDIST") }
    #expect(
      Double(hit[1].textValue)! == (pinDistance(from: centre, to: ids[first]!) * 1e4).rounded()
        / 1e4)
    for bad in [
      ["FROMLONLAT", "2", "48"], ["FROMLONLAT", "2", "48", "BYRADIUS", "1", "km", "NEW"],
      ["FROMCARD", "1", "NEAREST", "1"],
      ["FROMLONLAT", "2", "48", "NEAREST", "1", "FILTER", "city", "x"],
      ["FROMLONLAT", "200", "48", "NEAREST", "1"],
    ] {
      let reply = try bo.text(["PIN.SEARCH"] + bad)
      #expect(reply.hasPrefix("ERR") || reply.hasPrefix("INVALID"), "\(bad): \(reply)")
    }
    #expect(try bo.text("PIN.SEARCH", "FROMPIN", "999", "NEAREST", "1").hasPrefix("NOTFOUND"))
    await server.stop()
  }

  @Test("redis-py: add a pin, send its photo as bytes, open it from inside, vote, delete")
  func redisPy() async throws {
    let server = try await TestDaemon(pins: { _ in })
    _ = try server.signedIn("ana@x.org")
    _ = try server.signedIn("bo@x.org")
    let photo = TestPhoto.png(Array(0..<255))
    let hex = photo.map { String(format: "%02x", $0) }.joined()
    let script = """
      import json, redis
      r = redis.Redis(port=\(server.port), username="ana@x.org", password="secret1")
      pin = json.loads(r.execute_command("PIN.ADD", 151.21, -33.86, 100, "m", json.dumps({"caption": "Opera House"})))
      photo = bytes.fromhex("\(hex)")
      print(json.loads(r.execute_command("PIN.PHOTO", pin["id"], photo))["photo"]["type"])
      print(r.execute_command("PIN.OPEN", pin["id"], 151.21, -33.86) == photo)
      try:
          r.execute_command("PIN.OPEN", pin["id"], 151.3, -33.86)
      except redis.ResponseError as e:
          print(str(e).split()[0])
      print([h[0] == pin["id"] for h in r.execute_command("PIN.AT", 151.2105, -33.86)])
      bo = redis.Redis(port=\(server.port), username="bo@x.org", password="secret1")
      print(json.loads(bo.execute_command("PIN.VOTE", pin["id"], "UP"))["score"])
      print(r.execute_command("PIN.DEL", pin["id"]))
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    #expect(output == "image/png\nTrue\nNOTINRANGE\n[True]\n1\n1\n")
    #expect(try await server.photoFiles(reaching: 0).isEmpty)
    await server.stop()
  }
}

extension RESPConnection {
  /// PIN.OPEN's bytes, nil for an error.
  func open(_ id: Int, _ lon: Double, _ lat: Double) throws -> [UInt8]? {
    try command("PIN.OPEN", "\(id)", "\(lon)", "\(lat)").value.bytes
  }
}

extension RESPValue {
  var bytes: [UInt8]? {
    if case .bulkString(let b) = self { return Array(b.readableBytesView) }
    return nil
  }
}

extension Array where Element == UInt8 {
  func contains(_ part: [UInt8]) -> Bool {
    guard part.count <= count else { return false }
    return (0...(count - part.count)).contains { self[$0..<$0 + part.count].elementsEqual(part) }
  }
}
