import Foundation
import RESP
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension ClientMemoryTests {
  /// Signs in as a new account and stores a PDF of `bytes` bytes; answers its id.
  static func storeDocument(_ c: RESPConnection, bytes: Int) throws -> String {
    _ = try c.command("ACCOUNT.CREATE", "ana@x.org", "secret1")
    #expect(try c.command("AUTH", "ana@x.org", "secret1").text == "+OK\r\n")
    let pdf =
      Array("%PDF-1.4\n".utf8) + [UInt8](repeating: 0x41, count: bytes - 15) + Array("%%EOF\n".utf8)
    let put = try c.command(bytes: [
      Array("DOC.PUT".utf8), Array("VACCINATION".utf8), Array("2026-01-01".utf8), pdf,
    ])
    guard case .bulkString(let json) = put.value,
      let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: json).utf8))
        as? [String: Any], let id = object["id"] as? Int
    else { throw RESPConnection.Failed(description: "DOC.PUT: \(put.text.prefix(200))") }
    return String(id)
  }

  @Test(
    "clients that pipeline 50 DOC.GETs of a 5 MB document in one write and never read: few replies made, RSS bounded, and back near its start once they close",
    arguments: [8, 20])
  func unreadDocuments(connections: Int) throws {
    // On main, 8 such clients took RSS up by 1.8 GB: every DOC.GET was started at once.
    let total = 64 * 1024 * 1024
    let size = 5 * 1024 * 1024
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--maxmemory-clients", "\(total)"])
    let id: String
    do {
      let owner = try RESPConnection(port: server.port)
      id = try Self.storeDocument(owner, bytes: size)
      let whole = try owner.command("DOC.GET", id).text
      #expect(whole.count > size && whole.contains("$\(size)\r\n%PDF-1.4\n"))
    }
    let pinger = try RESPConnection(port: server.port)
    guard case .integer(let pingerID) = try pinger.command("CLIENT", "ID").value else {
      Issue.record("CLIENT ID is not an integer")
      return
    }
    server.waitUntilIdle()
    let baseline = server.residentBytes

    var readers: [RESPConnection] = []
    for _ in 0..<connections {
      let c = try RESPConnection(port: server.port)
      #expect(try c.command("AUTH", "ana@x.org", "secret1").text == "+OK\r\n")
      readers.append(c)
    }
    let pipeline = (0..<50).flatMap { _ in RESPConnection.frame(["DOC.GET", id]) }
    for c in readers { try c.send(pipeline) }
    var pings: [Double] = []
    var peak = baseline
    var settled = false
    let deadline = DispatchTime.now().uptimeNanoseconds + 20_000_000_000
    while !settled && DispatchTime.now().uptimeNanoseconds < deadline {
      for _ in 0..<20 {
        pings.append(try Self.milliseconds { _ = try pinger.command("PING") })
        peak = max(peak, server.residentBytes)
        usleep(5_000)
      }
      settled = try Self.clients(pinger).allSatisfy { fields in
        fields.contains { $0 == ("id", String(pingerID)) }
          || fields.contains { $0.0 == "events" && !$0.1.contains("r") }
      }
    }
    #expect(settled, "the server still reads some of the connections that never read")
    for _ in 0..<100 {
      pings.append(try Self.milliseconds { _ = try pinger.command("PING") })
      peak = max(peak, server.residentBytes)
      usleep(10_000)
    }
    let info = try Self.info(pinger)
    let clientMemory = Int(info["mem_clients_normal"] ?? "") ?? -1
    let evicted = Int(info["evicted_clients"] ?? "") ?? -1
    let started = info["cmdstat_doc.get"].flatMap { Int($0.split(separator: ",")[0].dropFirst(6)) }
    let during = server.residentBytes

    readers = []
    var after = server.residentBytes
    for _ in 0..<100 where after - baseline > 16 * 1024 * 1024 {
      usleep(100_000)
      after = server.residentBytes
    }
    print(
      "unread DOC.GETs, \(connections) connections: RSS \(baseline >> 20) MB before, peak "
        + "\(peak >> 20) MB, \(during >> 20) MB while they wait, \(after >> 20) MB after they close; "
        + "\(started ?? -1) DOC.GETs started of \(50 * connections); clients' buffers "
        + "\(clientMemory) bytes, \(evicted) evicted; PING p50 \(Self.percentile(pings, 0.5)) "
        + "p99 \(Self.percentile(pings, 0.99)) ms")
    // A connection makes its next reply only once the socket has taken the last one: a few
    // each, as much as the kernel's buffers hold, not all 50.
    #expect((started ?? .max) <= 1 + 4 * connections)
    #expect(clientMemory >= 0 && clientMemory <= total)
    // Beyond the counted total: a reply being read from its file, and the allocator's slack.
    #expect(peak - baseline <= total + 48 * 1024 * 1024)
    #expect(after - baseline <= 16 * 1024 * 1024)
    #expect(Self.percentile(pings, 0.5) < 10)
  }
}
