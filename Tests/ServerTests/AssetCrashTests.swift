import Foundation
import RESP
import RedisTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// Acknowledged uploads survive SIGKILL, and files and rows stay together: after a restart
/// every acknowledged asset is served with its bytes, and every file left is an asset's.
@Suite("Assets in the cardatlas process: kill -9, restart, flags", .serialized)
struct AssetCrashTests {
  /// One account's uploader: ASSET.PUT after ASSET.PUT until the server dies.
  final class Writer: @unchecked Sendable {
    let email: String
    /// Asset id to the bytes acknowledged.
    var acknowledged: [String: [UInt8]] = [:]

    init(email: String) { self.email = email }

    func run(port: UInt16) {
      guard let c = try? RESPConnection(port: port),
        (try? c.command("AUTH", email, "secret1"))?.text == "+OK\r\n"
      else { return }
      for i in 0... {
        // Some tens of kilobytes, so a kill often lands in a file's write.
        let bytes = PinCrashTests.Writer.jpeg(
          Array("\(email) \(i) ".utf8)
            + [UInt8](repeating: UInt8(i % 251), count: 20_000 + i % 30_000))
        guard
          case .bulkString(let b)? =
            (try? c.command(
              bytes: [Array("ASSET.PUT".utf8), Array("IMAGE".utf8), bytes]))?.value,
          let asset = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = asset["id"] as? String
        else { return }
        acknowledged[id] = bytes
      }
    }
  }

  /// The writers upload as fast as they can until the server dies: no quota or hourly limit
  /// (`AssetTests.quotas` checks those) stops them first.
  static let unbounded = ["--uploads-per-hour", "0", "--upload-quota", "\(1 << 40)"]

  @Test("acknowledged ASSET.PUT holds after kill -9; no file is left that no asset names")
  func killNine() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-asset-crash-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let emails = (0..<3).map { "a\($0)@x.org" }
    let writers = emails.map { Writer(email: $0) }
    for round in 0..<3 {
      let http = try RedisProcess.freeLoopbackPort()
      let server = try CardAtlasProcess(
        directory: directory, arguments: ["--http-port", "\(http)"] + Self.unbounded)
      if round == 0 {
        let admin = try RESPConnection(port: server.port)
        for email in emails { _ = try admin.command("ACCOUNT.CREATE", email, "secret1") }
      } else {
        try await Self.check(writers, server, http, kills: round)
      }
      let port = server.port
      let threads = writers.map { writer in Thread { writer.run(port: port) } }
      for thread in threads { thread.start() }
      try await server.crash(after: .milliseconds(1200))
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      #expect(writers.map(\.acknowledged.count).reduce(0, +) > 0, "writers made progress")
    }
    let http = try RedisProcess.freeLoopbackPort()
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--http-port", "\(http)"] + Self.unbounded)
    try await Self.check(writers, server, http, kills: 3)
  }

  @Test(
    "after kill -9 the cards' claims are read back: another account still cannot name an asset, and deleting the card still deletes its file"
  )
  func claimsAfterRestart() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-asset-restart-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    func signedIn(_ port: UInt16, _ email: String) throws -> RESPConnection {
      let c = try RESPConnection(port: port)
      #expect(try c.command("AUTH", email, "secret1").text == "+OK\r\n")
      return c
    }
    func upload(_ c: RESPConnection, _ kind: String, _ file: String) throws -> String {
      let reply = try c.command(
        bytes: [Array("ASSET.PUT".utf8), Array(kind.utf8), try MediaFixtures.bytes(file)])
      guard case .bulkString(let b) = reply.value,
        let asset = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any],
        let url = asset["url"] as? String
      else { throw RESPConnection.Failed(description: "ASSET.PUT: \(reply.text)") }
      return url
    }
    let files = {
      (try? FileManager.default.contentsOfDirectory(atPath: directory + "/media/assets")) ?? []
    }
    var picture = ""
    var card = ""
    do {
      let server = try CardAtlasProcess(directory: directory)
      let admin = try RESPConnection(port: server.port)
      for email in ["ana@x.org", "bo@x.org"] {
        _ = try admin.command("ACCOUNT.CREATE", email, "secret1")
      }
      let ana = try signedIn(server.port, "ana@x.org")
      picture = try upload(ana, "IMAGE", "python.jpg")
      _ = try upload(ana, "LOGO", "python.png")
      let made = try ana.command("CARD.CREATE", #"{"firstName":"Ana","imageUrl":"\#(picture)"}"#)
      guard case .bulkString(let b) = made.value,
        let json = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any], let id = json["id"] as? Int
      else { throw RESPConnection.Failed(description: "CARD.CREATE: \(made.text)") }
      card = "\(id)"
      server.signal(SIGKILL)
      server.waitUntilExit()
    }
    let server = try CardAtlasProcess(directory: directory)
    #expect(files().count == 2)
    let bo = try signedIn(server.port, "bo@x.org")
    #expect(
      try bo.command("CARD.CREATE", #"{"firstName":"Bo","imageUrl":"\#(picture)"}"#).text
        == "-INVALID imageUrl: the asset is not yours\r\n")
    let ana = try signedIn(server.port, "ana@x.org")
    #expect(try ana.command("CARD.DEL", card).text == ":1\r\n")
    // The picture (named by the card) went; the logo (no card named it, still young) stays.
    #expect(files().count == 1)
    #expect(files().allSatisfy { $0.hasSuffix(".png") })
  }

  @Test("serve --max-upload-bytes bounds ASSET.PUT and PUT /v1/assets alike")
  func maxUploadBytes() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-asset-limit-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let http = try RedisProcess.freeLoopbackPort()
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--http-port", "\(http)", "--max-upload-bytes", "600"])
    let c = try RESPConnection(port: server.port)
    _ = try c.command("ACCOUNT.CREATE", "a@x.org", "secret1")
    guard case .bulkString(let t) = try c.command("SESSION.OPEN", "a@x.org", "secret1").value
    else { throw RESPConnection.Failed(description: "SESSION.OPEN") }
    let token = String(buffer: t)
    let jpeg = try MediaFixtures.bytes("python.jpg")  // 543 bytes
    let png = try MediaFixtures.bytes("python.png")  // 1020 bytes
    func put(_ bytes: [UInt8]) async throws -> Int {
      var request = URLRequest(url: URL(string: "http://127.0.0.1:\(http)/v1/assets?kind=image")!)
      request.httpMethod = "PUT"
      request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
      request.httpBody = Data(bytes)
      let session = URLSession(configuration: .ephemeral)
      defer { session.finishTasksAndInvalidate() }
      let (_, response) = try await session.data(for: request)
      return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
    #expect(try await put(png) == 413)
    #expect(try await put(jpeg) == 201)
    let command = [Array("ASSET.PUT".utf8), Array("IMAGE".utf8)]
    #expect(
      try c.command(bytes: command + [png]).text
        == "-INVALID an asset must be 1 to 600 bytes\r\n")
    #expect(try c.command(bytes: command + [jpeg]).text.hasPrefix("$"))
  }

  /// Every acknowledged asset is served with its bytes; every file is an asset served (at
  /// most one per writer and kill more than acknowledged: the upload in flight, durable but
  /// unanswered).
  static func check(
    _ writers: [Writer], _ server: CardAtlasProcess, _ http: UInt16, kills: Int
  ) async throws {
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    func get(_ id: String) async throws -> (Int, [UInt8]) {
      let url = URL(string: "http://127.0.0.1:\(http)/a/\(id)")!
      let (body, response) = try await session.data(from: url)
      return ((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](body))
    }
    let acknowledged = writers.flatMap(\.acknowledged)
    for (id, bytes) in acknowledged {
      let (status, body) = try await get(id)
      #expect(status == 200 && body == bytes, "asset \(id) lost or changed")
    }
    let files =
      (try? FileManager.default.contentsOfDirectory(atPath: server.directory + "/media/assets"))
      ?? []
    #expect(files.count >= acknowledged.count)
    #expect(files.count <= acknowledged.count + writers.count * kills)
    for file in files {
      let id = String(file.prefix { $0 != "." })
      #expect(try await get(id).0 == 200, "file \(file) is no asset's")
    }
  }
}
