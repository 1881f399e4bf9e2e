import Foundation
import RESP
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every acknowledged card change survives SIGKILL: accounts, cards, their moves.
@Suite("Card durability across kill -9", .serialized)
struct CardCrashTests {
  /// One account's writer: creates cards (it is Pro) and moves them, until the server dies.
  final class Writer: @unchecked Sendable {
    let email: String
    /// Card id to the last acknowledged location.
    var acknowledged: [Int: (Double, Double)] = [:]
    /// The move in flight when the server died: it may or may not have been made durable.
    var unanswered: (id: Int, lon: Double, lat: Double)?

    init(email: String) { self.email = email }

    func run(port: UInt16) {
      guard let c = try? RESPConnection(port: port),
        (try? c.command("AUTH", email, "secret1"))?.text == "+OK\r\n"
      else { return }
      for i in 0... {
        let lon = Double(i % 360) - 179.5
        let lat = Double(i % 170) - 84.5
        let mine = Array(acknowledged.keys)
        let reply: RESPConnection.Reply?
        if mine.count < 10 {
          reply = try? c.command(
            "CARD.CREATE",
            #"{"firstName":"W\#(i)","showOnMap":true,"location":{"lon":\#(lon),"lat":\#(lat)}}"#)
        } else {
          let id = mine[i % mine.count]
          unanswered = (id, lon, lat)
          reply = try? c.command("CARD.LOCATE", "\(id)", "\(lon)", "\(lat)")
        }
        guard let reply, case .bulkString(let b) = reply.value,
          let card = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = card["id"] as? Int
        else { return }
        acknowledged[id] = (lon, lat)
        unanswered = nil
      }
    }
  }

  @Test("acknowledged CARD.CREATE and CARD.LOCATE are all there after kill -9 and restart")
  func killNine() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-card-crash-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let emails = (0..<4).map { "w\($0)@x.org" }
    do {
      let server = try CardAtlasProcess(directory: directory)
      let admin = try RESPConnection(port: server.port)
      for email in emails {
        guard case .bulkString(let b) = try admin.command("ACCOUNT.CREATE", email, "secret1").value,
          let account = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = account["id"] as? Int
        else { throw RESPConnection.Failed(description: "ACCOUNT.CREATE") }
        _ = try admin.command("ACCOUNT.PRO", "\(id)", "1")
      }
    }
    var expected: [String: [Int: (Double, Double)]] = [:]
    var inFlight: [String: (id: Int, lon: Double, lat: Double)] = [:]
    for _ in 0..<2 {
      let server = try CardAtlasProcess(directory: directory)
      // A move in flight that was made durable is where its card now is: the next round starts
      // from there (else a card it does not move again would seem to have moved by itself).
      expected = try Self.check(expected, inFlight, port: server.port)
      let writers = emails.map { Writer(email: $0) }
      for writer in writers { writer.acknowledged = expected[writer.email] ?? [:] }
      let port = server.port
      let threads = writers.map { writer in Thread { writer.run(port: port) } }
      for thread in threads { thread.start() }
      try await server.crash(after: .milliseconds(1500))
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      for writer in writers {
        expected[writer.email] = writer.acknowledged
        inFlight[writer.email] = writer.unanswered
      }
      #expect(expected.values.map(\.count).reduce(0, +) > 0, "writers made progress")
    }
    let server = try CardAtlasProcess(directory: directory)
    try Self.check(expected, inFlight, port: server.port)
  }

  /// Each account's acknowledged cards, at their last acknowledged location (or a later one,
  /// written but not yet acknowledged when the server died); returns where they are.
  @discardableResult
  static func check(
    _ expected: [String: [Int: (Double, Double)]],
    _ inFlight: [String: (id: Int, lon: Double, lat: Double)], port: UInt16
  ) throws -> [String: [Int: (Double, Double)]] {
    var found = expected
    for (email, cards) in expected {
      let c = try RESPConnection(port: port)
      #expect(try c.command("AUTH", email, "secret1").text == "+OK\r\n")
      guard case .array(let mine) = try c.command("CARD.MINE").value else {
        Issue.record("CARD.MINE")
        continue
      }
      var located: [Int: (Double, Double)] = [:]
      for value in mine {
        guard case .bulkString(let b) = value,
          let card = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = card["id"] as? Int, let location = card["location"] as? [String: Any],
          let lon = location["lon"] as? Double, let lat = location["lat"] as? Double
        else { continue }
        located[id] = (lon, lat)
      }
      let missing = cards.keys.filter { located[$0] == nil }
      #expect(missing.isEmpty, "\(email): acknowledged cards lost: \(missing)")
      for (id, (lon, lat)) in cards {
        guard let (x, y) = located[id] else { continue }
        let unanswered = inFlight[email].map { $0.id == id && $0.lon == x && $0.lat == y } ?? false
        #expect((x == lon && y == lat) || unanswered, "\(email): card \(id) at \(x),\(y)")
        found[email]?[id] = (x, y)
      }
      #expect(located.count <= 10)
    }
    return found
  }
}
