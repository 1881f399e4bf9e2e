import DaemonTestSupport
import Documents
import Foundation
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// Private documents through the protocol over real sockets: only their owner sees them.
@Suite("Documents")
struct DocumentTests {
  static func server(_ configure: (inout Documents.Configuration) -> Void = { _ in }) async throws
    -> TestDaemon
  {
    var configuration = Documents.Configuration()
    configure(&configuration)
    return try await TestDaemon(domain: { $0.documents = configuration })
  }

  /// DOC.PUT with binary bytes.
  static func put(_ c: RESPConnection, _ kind: String, _ day: String, _ bytes: [UInt8]) throws
    -> RESPValue
  {
    var frame = Array("*4\r\n".utf8)
    for argument in [Array("DOC.PUT".utf8), Array(kind.utf8), Array(day.utf8), bytes] {
      frame += Array("$\(argument.count)\r\n".utf8) + argument + Array("\r\n".utf8)
    }
    try c.send(frame)
    return try c.reply().value
  }

  static func object(_ value: RESPValue) -> [String: Any]? {
    guard case .bulkString(let b) = value else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8)) as? [String: Any]
  }

  static func error(_ value: RESPValue) -> String? {
    if case .error(let e) = value { return e }
    return nil
  }

  static func list(_ c: RESPConnection) throws -> [[String: Any]] {
    guard case .array(let items) = try c.command("DOC.LIST").value else { return [] }
    return items.compactMap(object)
  }

  static func mediaFiles(_ server: TestDaemon, reaching count: Int? = nil) async throws
    -> [String]
  {
    try await server.mediaFiles("documents", reaching: count)
  }

  @Test(
    "DOC.PUT takes PDF, JPEG and PNG by their bytes with a kind and a day; DOC.LIST and DOC.GET give them back to their owner; bad input is refused and stores nothing"
  )
  func putListGet() async throws {
    let server = try await Self.server { $0.maxBytes = 4096 }
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let pdf = try MediaFixtures.bytes("result.pdf")
    let jpeg = try MediaFixtures.bytes("python.jpg")
    let png = try MediaFixtures.bytes("python.png")
    let stored = [
      Self.object(try Self.put(ana, "VACCINATION", "2026-03-01", pdf)),
      Self.object(try Self.put(ana, "test-negative", "2026-10-02", jpeg)),
      Self.object(try Self.put(ana, "TEST-POSITIVE", "2026-11-20", png)),
    ]
    #expect(
      stored.map { $0?["type"] as? String } == ["application/pdf", "image/jpeg", "image/png"])
    #expect(
      stored.map { $0?["kind"] as? String } == ["VACCINATION", "TEST-NEGATIVE", "TEST-POSITIVE"])
    #expect(
      stored[0]?["size"] as? Int == pdf.count && stored[0]?["date"] as? String == "2026-03-01")
    #expect(
      Set(stored[0]?.keys.map { $0 } ?? []) == ["id", "kind", "date", "type", "size", "createdAt"])
    #expect(
      try Self.list(ana).map { $0["date"] as? String } == [
        "2026-11-20", "2026-10-02", "2026-03-01",
      ])
    for (object, bytes) in zip(stored, [pdf, jpeg, png]) {
      guard
        case .array(let reply) = try ana.command("DOC.GET", "\(object?["id"] as? Int ?? 0)").value,
        reply.count == 2, case .bulkString(let file) = reply[1]
      else {
        Issue.record("DOC.GET did not answer [json, bytes]")
        continue
      }
      #expect(Array(file.readableBytesView) == bytes)
      #expect(Self.object(reply[0])?["id"] as? Int == object?["id"] as? Int)
    }
    let files = try await Self.mediaFiles(server)
    #expect(files.count == 3)

    let gif = try MediaFixtures.bytes("python.gif")
    let webp = try MediaFixtures.bytes("python.webp")
    let bad: [(String, String, [UInt8], String)] = [
      (
        "PASSPORT", "2026-01-01", pdf,
        "INVALID kind must be one of VACCINATION, TEST-POSITIVE, TEST-NEGATIVE"
      ),
      ("VACCINATION", "2026-02-30", pdf, "INVALID date must be a day, yyyy-mm-dd"),
      ("VACCINATION", "26-01-01", pdf, "INVALID date must be a day, yyyy-mm-dd"),
      ("VACCINATION", "2126-01-01", pdf, "INVALID date is in the future"),
      ("VACCINATION", "2026-01-01", gif, "INVALID bytes must be a PDF, JPEG or PNG file"),
      ("VACCINATION", "2026-01-01", webp, "INVALID bytes must be a PDF, JPEG or PNG file"),
      (
        "VACCINATION", "2026-01-01", Array("%PDF-not really".utf8),
        "INVALID bytes must be a PDF, JPEG or PNG file"
      ),
      (
        "VACCINATION", "2026-01-01", Array(png.prefix(20)),
        "INVALID bytes must be a PDF, JPEG or PNG file"
      ),
      ("VACCINATION", "2026-01-01", [], "INVALID bytes must be a PDF, JPEG or PNG file"),
      (
        "VACCINATION", "2026-01-01", pdf + [UInt8](repeating: 32, count: 4096),
        "INVALID bytes larger than 4096 bytes"
      ),
    ]
    for (kind, day, bytes, error) in bad {
      #expect(
        Self.error(try Self.put(ana, kind, day, bytes)) == error, "\(kind) \(day) \(bytes.count)")
    }
    #expect(
      try ana.text("DOC.PUT", "VACCINATION", "2026-01-01").hasPrefix(
        "ERR wrong number of arguments"))
    #expect(try Self.list(ana).count == 3)
    #expect(try await Self.mediaFiles(server) == files)
    #expect(try ana.text("DOC.GET", "999") == "NOTFOUND no such document")
    #expect(try ana.text("DOC.GET", "x") == "NOTFOUND no such document")
    let anonymous = try server.connect()
    #expect(try anonymous.text("DOC.LIST").hasPrefix("NOAUTH"))
    await server.stop()
  }

  @Test(
    "Only the owner reads or deletes a document (NOPERM for others); documents are in no other reply; at most the configured number per account"
  )
  func privacy() async throws {
    let server = try await Self.server { $0.maxPerAccount = 2 }
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let png = try MediaFixtures.bytes("python.png")
    let id =
      "\(Self.object(try Self.put(ana, "TEST-POSITIVE", "2026-11-20", png))?["id"] as? Int ?? 0)"
    #expect(try bo.text("DOC.GET", id) == "NOPERM the document is not yours")
    #expect(try bo.text("DOC.DEL", id) == "NOPERM the document is not yours")
    #expect(try Self.list(bo).isEmpty)
    // Nothing of it anywhere else Bo can look, nor in Ana's other replies.
    let card = try ana.object(
      "CARD.CREATE",
      WalletTests.card("Ana", #""showOnMap":true,"location":{"lon":9.52,"lat":47.14}"#))
    for reply in [
      try bo.command(
        "CARD.SEARCH", "FROMLONLAT", "9.52", "47.14", "BYRADIUS", "10", "km", "WITHDIST"
      ).text,
      try bo.command("CARD.GET", "\(card["id"] as? Int ?? 0)").text,
      try bo.command("WALLET.SEARCH", "ana").text,
      try ana.command("WHOAMI").text, try ana.command("CARD.MINE").text,
    ] {
      #expect(!reply.contains("TEST-POSITIVE") && !reply.contains("image/png"), "\(reply)")
    }
    _ = try Self.put(ana, "VACCINATION", "2026-01-01", png)
    #expect(
      Self.error(try Self.put(ana, "VACCINATION", "2026-01-02", png))
        == "LIMIT at most 2 documents per account")
    #expect(try ana.text("DOC.DEL", id) == "1")
    #expect(try ana.text("DOC.DEL", id) == "NOTFOUND no such document")
    #expect(try Self.list(ana).count == 1)
    #expect(try await Self.mediaFiles(server, reaching: 1).count == 1)
    await server.stop()
  }

  @Test(
    "Documents.positiveTest is the latest positive test's day; a restart keeps documents and their files; deleting the account deletes both"
  )
  func durability() async throws {
    let server = try await Self.server()
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    let (bo, boID, _) = try server.signedIn("bo@x.org")
    let pdf = try MediaFixtures.bytes("result.pdf")
    #expect(server.daemon.domain.documents.positiveTest(of: Int64(anaID)) == nil)
    _ = try Self.put(ana, "TEST-POSITIVE", "2026-10-01", pdf)
    _ = try Self.put(ana, "TEST-POSITIVE", "2026-11-03", pdf)
    _ = try Self.put(ana, "TEST-NEGATIVE", "2026-11-10", pdf)
    _ = try Self.put(bo, "VACCINATION", "2026-05-05", pdf)
    let day = ISO8601DateFormatter().date(from: "2026-11-03T00:00:00Z")
    #expect(server.daemon.domain.documents.positiveTest(of: Int64(anaID)) == day)
    #expect(server.daemon.domain.documents.positiveTest(of: Int64(boID)) == nil)
    let before = try ana.command("DOC.LIST").text
    // A file no row names (a crash between the file and its row) is swept at the start. Over
    // PostgreSQL the bytes commit with their row: there is no such file to make.
    let stray = server.directory + "/media/documents/0123456789abcdef0123456789abcdef.pdf"
    if server.database == nil {
      #expect(FileManager.default.createFile(atPath: stray, contents: Data(pdf)))
    }
    try await server.restart()
    #expect(!FileManager.default.fileExists(atPath: stray))
    #expect(try await Self.mediaFiles(server, reaching: 4).count == 4)
    let again = try server.connect()
    _ = try again.text("AUTH", "ana@x.org", "secret1")
    #expect(try again.command("DOC.LIST").text == before)
    let first = try Self.list(again).last?["id"] as? Int ?? 0
    guard case .array(let reply) = try again.command("DOC.GET", "\(first)").value, reply.count == 2,
      case .bulkString(let file) = reply[1]
    else {
      Issue.record("DOC.GET after a restart")
      return
    }
    #expect(Array(file.readableBytesView) == pdf)
    #expect(server.daemon.domain.documents.positiveTest(of: Int64(anaID)) == day)
    #expect(try again.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(server.daemon.domain.documents.positiveTest(of: Int64(anaID)) == nil)
    #expect(try await Self.mediaFiles(server, reaching: 1).count == 1)
    try await server.restart()
    #expect(try await Self.mediaFiles(server, reaching: 1).count == 1)
    await server.stop()
  }
}
