import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every acknowledged check-in and check-out survives SIGKILL of a real `cardatlas serve`.
@Suite("Venue durability across kill -9", .serialized)
struct VenueCrashTests {
  /// One account's check-ins, round the venues, with a check-out now and then, until the server
  /// dies.
  final class Visitor: @unchecked Sendable {
    let email: String
    let codes: [String]
    /// Visit id to its venue, for every acknowledged check-in.
    var visits: [Int: Int] = [:]
    /// Visits acknowledged closed: by a CHECKOUT, or by a check-in elsewhere.
    var closed: Set<Int> = []
    var open: Int?
    /// Visits acknowledged so far (`visits.count`), read while `run` goes on.
    let checkIns = Atomic(0)

    init(email: String, codes: [String]) {
      self.email = email
      self.codes = codes
    }

    func run(port: UInt16) {
      guard let c = try? RESPConnection(port: port),
        (try? c.command("AUTH", email, "secret1"))?.text == "+OK\r\n"
      else { return }
      // CHECKIN.HISTORY answers at most 10,000 visits: over its two rounds each visitor stays
      // under that.
      for i in 0..<2_400 {
        let checkOut = i % 7 == 6
        let reply = try? c.command(checkOut ? ["CHECKOUT"] : ["CHECKIN", codes[i % codes.count]])
        guard let reply, case .bulkString(let b) = reply.value,
          let visit = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any]
        else { return }
        let id = checkOut ? nil : visit["id"] as? Int
        // A check-in at the venue already in keeps that visit open.
        if let open, open != id { closed.insert(open) }
        open = id
        if let id, let venue = visit["venueId"] as? Int,
          visits.updateValue(venue, forKey: id) == nil
        {
          checkIns.add(1, ordering: .relaxed)
        }
      }
    }
  }

  @Test("acknowledged CHECKIN and CHECKOUT are all there after kill -9 and restart")
  func killNine() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-venue-crash-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let emails = (0..<4).map { "v\($0)@x.org" }
    var codes: [String] = []
    do {
      let server = try CardAtlasProcess(
        directory: directory, arguments: ["--venues-per-hour", "0"])
      let admin = try RESPConnection(port: server.port)
      for email in emails + ["owner@x.org"] {
        _ = try admin.command("ACCOUNT.CREATE", email, "secret1")
      }
      let owner = try RESPConnection(port: server.port)
      _ = try owner.command("AUTH", "owner@x.org", "secret1")
      for i in 0..<5 {
        guard
          case .bulkString(let b) = try owner.command(
            "VENUE.CREATE", #"{"name":"V\#(i)","lon":\#(i),"lat":1}"#
          ).value,
          let venue = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = venue["id"] as? Int,
          case .bulkString(let code) = try owner.command("VENUE.CODE", "\(id)").value
        else { throw RESPConnection.Failed(description: "VENUE.CREATE") }
        codes.append(String(buffer: code))
      }
    }
    let visitors = emails.map { Visitor(email: $0, codes: codes) }
    for _ in 0..<2 {
      let server = try CardAtlasProcess(
        directory: directory, arguments: ["--venues-per-hour", "0"])
      try Self.check(visitors, port: server.port)
      let before = visitors.map(\.visits.count).reduce(0, +)
      let port = server.port
      let threads = visitors.map { visitor in Thread { visitor.run(port: port) } }
      for thread in threads { thread.start() }
      // The kill comes once the visitors have made 100 more visits (they make 4 × 2,400 at
      // most), however slow the machine: while they are still writing.
      let started = visitors.map { $0.checkIns.load(ordering: .relaxed) }.reduce(0, +)
      let deadline = Date().addingTimeInterval(60)
      while visitors.map({ $0.checkIns.load(ordering: .relaxed) }).reduce(0, +) <= started + 100,
        Date() < deadline
      {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      server.signal(SIGKILL)
      server.waitUntilExit()
      while threads.contains(where: { !$0.isFinished }) {
        try await Task.sleep(nanoseconds: 10_000_000)
      }
      #expect(visitors.map(\.visits.count).reduce(0, +) > before + 100, "visitors made progress")
    }
    let server = try CardAtlasProcess(directory: directory, arguments: ["--venues-per-hour", "0"])
    try Self.check(visitors, port: server.port)
  }

  /// Each visitor's history holds every acknowledged visit at its venue, closed if its closing
  /// was acknowledged; at most one more (the check-in in flight as the server died).
  static func check(_ visitors: [Visitor], port: UInt16) throws {
    for visitor in visitors {
      let c = try RESPConnection(port: port)
      #expect(try c.command("AUTH", visitor.email, "secret1").text == "+OK\r\n")
      guard case .array(let items) = try c.command("CHECKIN.HISTORY", "COUNT", "10000").value else {
        Issue.record("CHECKIN.HISTORY")
        continue
      }
      var stored: [Int: (venue: Int, open: Bool)] = [:]
      for item in items {
        guard case .bulkString(let b) = item,
          let visit = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = visit["id"] as? Int, let venue = visit["venueId"] as? Int
        else { continue }
        stored[id] = (venue, visit["isOpen"] as? Bool ?? false)
      }
      let lost = visitor.visits.filter { stored[$0.key]?.venue != $0.value }
      #expect(lost.isEmpty, "\(visitor.email): acknowledged visits lost: \(lost.keys.sorted())")
      let reopened = visitor.closed.filter { stored[$0]?.open != false }
      #expect(reopened.isEmpty, "\(visitor.email): closed visits open again: \(reopened)")
      #expect(stored.count <= visitor.visits.count + 1, "\(visitor.email): visits nobody made")
      // What the next round starts from: a visit in flight that was made durable is there.
      for (id, visit) in stored where visitor.visits[id] == nil { visitor.visits[id] = visit.venue }
      visitor.open = stored.first { $0.value.open && visitor.visits[$0.key] != nil }?.key
    }
  }
}
