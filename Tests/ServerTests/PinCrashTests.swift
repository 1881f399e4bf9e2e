import Foundation
import RESP
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Acknowledged pin writes survive SIGKILL, and a photo's file and its row stay together: after
/// a restart no file is left that no pin names, and no pin names a file that is not there.
@Suite("Pin durability across kill -9", .serialized)
struct PinCrashTests {
  /// One account's writer: adds pins, sends their photos, deletes some, until the server dies.
  final class Writer: @unchecked Sendable {
    let email: String
    /// Pin id to its last acknowledged photo (nil: none yet).
    var acknowledged: [Int: [UInt8]?] = [:]
    var deleted: Set<Int> = []
    /// The photo or deletion in flight when the server died: it may or may not be durable.
    var unanswered: (id: Int, photo: [UInt8]?)?

    init(email: String) { self.email = email }

    func run(port: UInt16) {
      guard let c = try? RESPConnection(port: port),
        (try? c.command("AUTH", email, "secret1"))?.text == "+OK\r\n"
      else { return }
      for i in 0... {
        let pins = acknowledged.keys.sorted()
        if i % 3 == 0 || pins.isEmpty {
          let lon = Double(i % 340) - 170
          let lat = Double(i % 160) - 80
          guard
            let reply = try? c.command("PIN.ADD", "\(lon)", "\(lat)", "100", "m", "{}"),
            let id = Self.id(reply)
          else { return }
          acknowledged[id] = .some(nil)
        } else if i % 7 == 0 {
          let id = pins[i % pins.count]
          unanswered = (id, nil)
          guard (try? c.command("PIN.DEL", "\(id)"))?.text == ":1\r\n" else { return }
          acknowledged[id] = nil
          deleted.insert(id)
        } else {
          let id = pins[i % pins.count]
          // Some tens of kilobytes, so a kill often lands in a file's write.
          let photo = Self.jpeg(
            Array("\(email) \(id) \(i) ".utf8)
              + [UInt8](repeating: UInt8(i % 251), count: 20_000 + i % 30_000))
          unanswered = (id, photo)
          guard
            let reply = try? c.command(
              bytes: ["PIN.PHOTO", "\(id)"].map { Array($0.utf8) } + [photo]),
            Self.id(reply) == id
          else { return }
          acknowledged[id] = photo
        }
        unanswered = nil
      }
    }

    static func id(_ reply: RESPConnection.Reply) -> Int? {
      guard case .bulkString(let b) = reply.value,
        let pin = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any]
      else { return nil }
      return pin["id"] as? Int
    }

    static func jpeg(_ payload: [UInt8]) -> [UInt8] {
      [
        0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x20, 0x03, 0x01, 0x22, 0x00,
        0x02, 0x11, 0x01, 0x03, 0x11, 0x01,
      ] + payload + [0xFF, 0xD9]
    }
  }

  @Test("acknowledged PIN.ADD, PIN.PHOTO and PIN.DEL hold after kill -9; files match rows")
  func killNine() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-pin-crash-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let emails = (0..<3).map { "p\($0)@x.org" }
    do {
      let server = try CardAtlasProcess(directory: directory, arguments: Self.anywhere)
      let admin = try RESPConnection(port: server.port)
      for email in emails { _ = try admin.command("ACCOUNT.CREATE", email, "secret1") }
    }
    var writers = emails.map { Writer(email: $0) }
    for round in 0..<3 {
      let server = try CardAtlasProcess(directory: directory, arguments: Self.anywhere)
      if round > 0 { writers = try Self.check(writers, server) }
      let port = server.port
      let threads = writers.map { writer in Thread { writer.run(port: port) } }
      for thread in threads { thread.start() }
      try await server.crash(after: .milliseconds(1200))
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      #expect(writers.map(\.acknowledged.count).reduce(0, +) > 0, "writers made progress")
      #expect(
        writers.flatMap(\.acknowledged.values).contains { $0 != nil }, "photos were acknowledged")
    }
    let server = try CardAtlasProcess(directory: directory, arguments: Self.anywhere)
    _ = try Self.check(writers, server)
  }

  @Test("serve --max-photo-bytes bounds PIN.PHOTO")
  func maxPhotoBytes() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-pin-limit-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--max-photo-bytes", "200"])
    let c = try RESPConnection(port: server.port)
    _ = try c.command("ACCOUNT.CREATE", "a@x.org", "secret1")
    #expect(try c.command("AUTH", "a@x.org", "secret1").text == "+OK\r\n")
    guard let id = Writer.id(try c.command("PIN.ADD", "1", "2", "100", "m", "{}")) else {
      throw RESPConnection.Failed(description: "PIN.ADD")
    }
    let small = Writer.jpeg([UInt8](repeating: 1, count: 200 - 23))
    let large = Writer.jpeg([UInt8](repeating: 1, count: 201 - 23))
    let photo = ["PIN.PHOTO", "\(id)"].map { Array($0.utf8) }
    #expect(try c.command(bytes: photo + [large]).text.hasPrefix("-INVALID photo must be 1 to 200"))
    #expect(Writer.id(try c.command(bytes: photo + [small])) == id)
  }

  /// The check opens every pin from its centre, one after another wherever they are: no
  /// opener could travel so, and none opens so often (`PinOpenAttackTests` checks those limits).
  static let anywhere = [
    "--pin-open-speed", "1e12", "--pin-opens-per-hour", "0", "--pins-per-hour", "0",
  ]

  /// Every acknowledged pin is there with its acknowledged photo (or the one in flight), every
  /// acknowledged deletion holds, and the photo files are exactly those the pins name. Returns
  /// writers that start from what is there.
  static func check(_ writers: [Writer], _ server: CardAtlasProcess) throws -> [Writer] {
    var withPhotos = 0
    var next: [Writer] = []
    for writer in writers {
      let c = try RESPConnection(port: server.port)
      #expect(try c.command("AUTH", writer.email, "secret1").text == "+OK\r\n")
      let resumed = Writer(email: writer.email)
      for (id, photo) in writer.acknowledged {
        let inFlight = writer.unanswered?.id == id ? writer.unanswered : nil
        guard case .bulkString(let b) = try c.command("PIN.GET", "\(id)").value,
          let pin = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let lon = pin["lon"] as? Double, let lat = pin["lat"] as? Double
        else {
          #expect(inFlight != nil && inFlight?.photo == nil, "\(writer.email): pin \(id) lost")
          continue
        }
        let opened = try c.command("PIN.OPEN", "\(id)", "\(lon)", "\(lat)").value
        var found: [UInt8]?
        if case .bulkString(let bytes) = opened { found = Array(bytes.readableBytesView) }
        #expect((pin["hasPhoto"] as? Bool == true) == (found != nil), "pin \(id): row and file")
        #expect(
          found == photo || (inFlight != nil && found == inFlight?.photo),
          "\(writer.email): pin \(id) has another photo than acknowledged")
        if found != nil { withPhotos += 1 }
        resumed.acknowledged[id] = .some(found)
      }
      for id in writer.deleted {
        #expect(try c.command("PIN.GET", "\(id)").text.hasPrefix("-NOTFOUND"), "pin \(id) back")
      }
      resumed.deleted = writer.deleted
      next.append(resumed)
    }
    let files =
      (try? FileManager.default.contentsOfDirectory(
        atPath: server.directory + "/media/pins")) ?? []
    #expect(files.count == withPhotos, "photo files \(files.count), pins with photos \(withPhotos)")
    return next
  }
}
