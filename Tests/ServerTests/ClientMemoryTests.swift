import Dispatch
import Foundation
import RESP
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Memory bounded per client and in total, as Redis users know it: replies held behind a
/// durable write count toward back-pressure, and `client-output-buffer-limit`,
/// `client-query-buffer-limit` and `maxmemory-clients` close what goes past them. Through the
/// real executable, so that its resident size is the server's alone.
@Suite("Client buffers and their limits", .serialized)
struct ClientMemoryTests {
  static func directory() -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-memory-\(UUID().uuidString)").path
  }

  static func info(_ c: RESPConnection) throws -> [String: String] {
    ServerCommandTests.fields(ServerCommandTests.text(try c.command("INFO", "all").value))
  }

  /// CLIENT LIST's lines as ordered fields.
  static func clients(_ c: RESPConnection) throws -> [[(String, String)]] {
    ServerCommandTests.text(try c.command("CLIENT", "LIST").value).split(separator: "\n").map {
      $0.split(separator: " ").map { field in
        let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
      }
    }
  }

  /// Members whose names are `size` bytes, near 0,0: a search of 100 km around it returns
  /// them all, a large reply for little work even in a debug build.
  static func addFatMembers(_ c: RESPConnection, key: String, count: Int, size: Int) throws {
    var arguments = ["GEOADD", key]
    for i in 0..<count {
      arguments += ["0.00\(i)", "0.01", String(repeating: String(i % 10), count: size)]
    }
    #expect(try c.command(arguments).text == ":\(count)\r\n")
  }

  /// Whether the server closed the connection; a client still sending when it did reads a
  /// reset first, then the end.
  static func isClosed(_ c: RESPConnection) -> Bool {
    c.isClosedByPeer() || c.isClosedByPeer()
  }

  static func search(_ key: String) -> [UInt8] {
    RESPConnection.frame(["GEOSEARCH", key, "FROMLONLAT", "0", "0", "BYRADIUS", "100", "km"])
  }

  /// A write (its reply waits for the store) and then `searches` searches, `rounds` times.
  static func unreadPipeline(_ connection: Int, searches: Int, rounds: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for round in 0..<rounds {
      bytes += RESPConnection.frame(["GEOADD", "w\(connection)", "1", "1", "m\(round)"])
      for _ in 0..<searches { bytes += search("fat") }
    }
    return bytes
  }

  static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
  }

  static func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
  }

  @Test(
    "connections that pipeline searches behind a durable write and never read: RSS within the configured total, PINGs answered in under 10 ms (median)",
    arguments: [8, 32])
  func unreadPipelines(connections: Int) throws {
    // Each connection asks for 800 replies of 128 KiB: 100 MB, as the issue's clients did
    // (on main, 8 of them took RSS from 52 to 860 MB). 4 MB for all clients' buffers.
    let total = 4 * 1024 * 1024
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--maxmemory-clients", "\(total)"])
    let pinger = try RESPConnection(port: server.port)
    guard case .integer(let id) = try pinger.command("CLIENT", "ID").value else {
      Issue.record("CLIENT ID is not an integer")
      return
    }
    let pingerID = String(id)
    try Self.addFatMembers(pinger, key: "fat", count: 4, size: 32 * 1024)
    usleep(300_000)
    let baseline = server.residentBytes

    let readers = try (0..<connections).map { _ in try RESPConnection(port: server.port) }
    for (i, connection) in readers.enumerated() {
      let pipeline = Self.unreadPipeline(i, searches: 200, rounds: 4)
      Thread { try? connection.send(pipeline) }.start()
    }
    // While the server serves them until it stops reading them, then while they sit there.
    var filling: [Double] = []
    var peak = baseline
    var settled = false
    let deadline = DispatchTime.now().uptimeNanoseconds + 20_000_000_000
    while !settled && DispatchTime.now().uptimeNanoseconds < deadline {
      for _ in 0..<20 {
        filling.append(try Self.milliseconds { _ = try pinger.command("PING") })
        peak = max(peak, server.residentBytes)
        usleep(2_000)
      }
      // Settled once every other connection is closed or no longer read from.
      settled = try Self.clients(pinger).allSatisfy { fields in
        fields.contains { $0 == ("id", pingerID) }
          || fields.contains { $0.0 == "events" && !$0.1.contains("r") }
      }
    }
    #expect(settled, "the server still reads some of the connections that never read")
    var held: [Double] = []
    for _ in 0..<200 {
      held.append(try Self.milliseconds { _ = try pinger.command("PING") })
      peak = max(peak, server.residentBytes)
      usleep(2_000)
    }
    let info = try Self.info(pinger)
    let evicted = Int(info["evicted_clients"] ?? "") ?? -1
    let connected = Int(info["connected_clients"] ?? "") ?? -1
    let clientMemory = Int(info["mem_clients_normal"] ?? "") ?? -1
    print(
      "unread pipelines, \(connections) connections: RSS \(baseline >> 20) -> \(peak >> 20) MB, "
        + "PING while filling p50 \(Self.percentile(filling, 0.5)) p99 \(Self.percentile(filling, 0.99)) "
        + "max \(filling.max() ?? 0) ms, then p99 \(Self.percentile(held, 0.99)) max \(held.max() ?? 0) ms; "
        + "\(evicted) evicted, clients' buffers \(clientMemory) bytes")
    // What the clients hold stays within the total; the rest of the growth is what every
    // connection costs besides its buffers, and the allocator's slack.
    #expect(clientMemory <= total)
    #expect(peak - baseline <= total + 8 * 1024 * 1024)
    // Every connection is there or was closed for the total, the largest first.
    #expect(evicted >= 0 && connected + evicted == connections + 1)
    if connections == 32 { #expect(evicted > 0) }
    // The loop is not held by those connections: on main a PING waited 9-12 s behind them. The
    // median, not the tail: the suite runs beside other tests on two cores, whose own load
    // shows in the tail (an idle server's PINGs reach 8 ms here while compilers run).
    #expect(Self.percentile(filling + held, 0.5) < 10)
    #expect(Self.percentile(held, 0.5) < 10)
  }

  @Test(
    "writes pipelined faster than the store commits them: at most 1 MiB of them wait, all committed"
  )
  func unreadWrites() async throws {
    let server = try await TestServer()
    let checker = try RESPConnection(port: server.port)
    let writer = try RESPConnection(port: server.port)
    let count = 60_000
    var pipeline: [UInt8] = []
    for i in 0..<count {
      pipeline += RESPConnection.frame([
        "GEOADD", "k", String(Double(i % 3000) / 20 - 75), "10", String(format: "m%06d", i),
      ])
    }
    let size = pipeline.count / count
    let writes = pipeline
    Thread { try? writer.send(writes) }.start()
    var mostPending = 0
    var members = ""
    for _ in 0..<600 where members != ":\(count)\r\n" {
      for fields in try Self.clients(checker)
      where fields.contains(where: { $0 == ("cmd", "geoadd") }) {
        mostPending = max(mostPending, Int(fields.first { $0.0 == "oll" }?.1 ?? "") ?? 0)
      }
      members = try checker.command("ZCARD", "k").text
      usleep(50_000)
    }
    #expect(members == ":\(count)\r\n")
    #expect(mostPending > 0 && mostPending <= 1024 * 1024 / size + 1)
    await server.stop()
  }

  @Test(
    "client-output-buffer-limit: past the soft limit for its seconds, or past the hard one, the connection is closed"
  )
  func outputBufferLimit() throws {
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(
      directory: directory, arguments: ["--client-output-buffer-limit", "normal 0 32kb 1"])
    let checker = try RESPConnection(port: server.port)
    #expect(
      try checker.command("CONFIG", "GET", "client-output-buffer-limit").text
        == "*2\r\n$26\r\nclient-output-buffer-limit\r\n$43\r\nnormal 0 32768 1 pubsub 33554432 8388608 60\r\n"
    )
    try Self.addFatMembers(checker, key: "fat", count: 4, size: 32 * 1024)
    let readers = try (0..<8).map { _ in try RESPConnection(port: server.port) }
    for (i, connection) in readers.enumerated() {
      let pipeline = Self.unreadPipeline(i, searches: 100, rounds: 1)
      Thread { try? connection.send(pipeline) }.start()
    }
    var info = try Self.info(checker)
    for _ in 0..<100 where info["connected_clients"] != "1" {
      usleep(100_000)
      info = try Self.info(checker)
    }
    #expect(info["connected_clients"] == "1")
    #expect(info["client_output_buffer_limit_disconnections"] == "8")
    #expect(try checker.command("PING").text == "+PONG\r\n")

    // The hard limit closes at once: one reply of 8 MB against 1 MB.
    try Self.addFatMembers(checker, key: "huge", count: 4, size: 2 * 1024 * 1024)
    #expect(
      try checker.command("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0").text
        == "+OK\r\n")
    let greedy = try RESPConnection(port: server.port)
    try greedy.send(Self.search("huge"))
    for _ in 0..<100
    where try Self.info(checker)["client_output_buffer_limit_disconnections"] != "9" {
      usleep(50_000)
    }
    #expect(try Self.info(checker)["client_output_buffer_limit_disconnections"] == "9")
    #expect(try Self.clients(checker).count == 1)
    // Redis's units (k is 1,000, kb 1,024), the pubsub class set too, replica accepted and
    // unused, and Redis's syntax errors.
    #expect(
      try checker.command(
        "CONFIG", "SET", "client-output-buffer-limit",
        "normal 1kb 2k 3 pubsub 1mb 512kb 30 replica 1 1 1"
      ).text == "+OK\r\n")
    #expect(
      try checker.command("CONFIG", "GET", "client-output-buffer-limit").text
        == "*2\r\n$26\r\nclient-output-buffer-limit\r\n$43\r\nnormal 1024 2000 3 pubsub 1048576 524288 30\r\n"
    )
    #expect(
      try checker.command("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0").text
        == "-ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration.\r\n"
    )
    #expect(
      try checker.command("CONFIG", "SET", "client-output-buffer-limit", "normal 1xb 0 0").text
        .contains("Error in hard, soft or soft_seconds setting"))
  }

  /// A client sends 2 MB of a 5 MB string with the limit at 1 MB.
  static func overlongQuery(port: UInt16) throws -> (reply: String, closed: Bool) {
    let c = try RESPConnection(port: port, timeoutSeconds: 5)
    try? c.send(Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5000000\r\n".utf8))
    try? c.send([UInt8](repeating: UInt8(ascii: "a"), count: 2_000_000))
    do {
      let reply = try c.reply()
      return (reply.text, isClosed(c))
    } catch {
      return ("", isClosed(c))
    }
  }

  @Test(
    "client-query-buffer-limit: a client whose unparsed input exceeds it is closed, as by Redis")
  func queryBufferLimit() async throws {
    let redis = try RedisProcess()
    defer { redis.stop() }
    let server = try await TestServer()
    let ours = try RESPConnection(port: server.port)
    let theirs = try RESPConnection(port: redis.port)
    for c in [ours, theirs] {
      #expect(try c.command("CONFIG", "SET", "client-query-buffer-limit", "1mb").text == "+OK\r\n")
      #expect(
        try c.command("CONFIG", "SET", "client-query-buffer-limit", "1000").text
          == "-ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - argument must be between 1048576 and 9223372036854775807 inclusive\r\n"
      )
      #expect(
        try c.command("CONFIG", "SET", "client-query-buffer-limit", "lots").text
          == "-ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - argument must be a memory value\r\n"
      )
    }
    let mine = try Self.overlongQuery(port: server.port)
    let redisOwn = try Self.overlongQuery(port: redis.port)
    #expect(mine.reply == redisOwn.reply)
    #expect(mine.closed && redisOwn.closed)
    #expect(try Self.info(ours)["client_query_buffer_limit_disconnections"] == "1")
    // A string under the limit is taken whole.
    let value = String(repeating: "b", count: 900_000)
    #expect(try ours.command("SET", "k", value).text == "+OK\r\n")
    #expect(try ours.command("GET", "k").text == "$900000\r\n\(value)\r\n")
    await server.stop()
  }

  @Test("maxmemory-clients: past the total, the client using the most is closed first, as by Redis")
  func clientEviction() async throws {
    let redis = try RedisProcess()
    defer { redis.stop() }
    let server = try await TestServer()
    for port in [server.port, redis.port] {
      let admin = try RESPConnection(port: port)
      #expect(try admin.command("CONFIG", "SET", "maxmemory-clients", "8mb").text == "+OK\r\n")
      #expect(
        try admin.command("CONFIG", "GET", "maxmemory-clients").text.hasSuffix("$7\r\n8388608\r\n"))
      // Two strings on their way: 1.4 MB of one, then 7 MB of another. (Redis counts the room
      // it makes for a whole string, and ranks clients by powers of two of their memory, so
      // the two differ by more than that.)
      let small = try RESPConnection(port: port)
      try small.send(Array("*3\r\n$3\r\nSET\r\n$5\r\nsmall\r\n$1500000\r\n".utf8))
      try small.send([UInt8](repeating: UInt8(ascii: "s"), count: 1_400_000))
      usleep(200_000)
      let large = try RESPConnection(port: port)
      try large.send(Array("*3\r\n$3\r\nSET\r\n$5\r\nlarge\r\n$7500000\r\n".utf8))
      try? large.send([UInt8](repeating: UInt8(ascii: "l"), count: 7_000_000))
      #expect(Self.isClosed(large), "port \(port)")
      try small.send([UInt8](repeating: UInt8(ascii: "s"), count: 100_000) + [13, 10])
      #expect(try small.reply().text == "+OK\r\n", "port \(port)")
      let info = try Self.info(admin)
      #expect(info["evicted_clients"] == "1", "port \(port)")
    }
    await server.stop()
  }

  @Test("CLIENT LIST shows each client's buffers under Redis's names, in Redis's order")
  func clientListBuffers() async throws {
    let redis = try RedisProcess()
    defer { redis.stop() }
    let server = try await TestServer()
    let theirs = try Self.clients(try RESPConnection(port: redis.port))[0].map(\.0)
    let c = try RESPConnection(port: server.port)
    #expect(try c.command("PING").text == "+PONG\r\n")
    // A string half sent: its bytes wait in the query buffer.
    let partial = try RESPConnection(port: server.port)
    try partial.send(Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$200000\r\n".utf8))
    try partial.send([UInt8](repeating: UInt8(ascii: "p"), count: 100_000))
    usleep(200_000)
    let lines = try Self.clients(c)
    #expect(lines.count == 2)
    for fields in lines {
      let names = fields.map(\.0)
      // Ours are Redis's, in Redis's order, with none of the buffer fields left out.
      #expect(names.filter { theirs.contains($0) } == names)
      #expect(theirs.filter { names.contains($0) } == names)
      for name in ["qbuf", "qbuf-free", "argv-mem", "obl", "oll", "omem", "tot-mem", "events"] {
        #expect(names.contains(name), "\(name)")
      }
    }
    let waiting = lines.first { fields in fields.contains { $0 == ("cmd", "NULL") } }
    let value = { (name: String) in Int(waiting?.first { $0.0 == name }?.1 ?? "") ?? -1 }
    #expect(value("qbuf") >= 100_000 && value("qbuf") <= 100_100)
    #expect(value("tot-mem") >= value("qbuf") + value("qbuf-free"))
    #expect(value("omem") == 0 && value("oll") == 0)
    let fields = try Self.info(c)
    #expect((Int(fields["client_recent_max_input_buffer"] ?? "") ?? 0) >= 100_000)
    #expect((Int(fields["mem_clients_normal"] ?? "") ?? 0) >= 100_000)
    for name in ["client_recent_max_output_buffer", "clients_in_timeout_table", "evicted_clients"] {
      #expect(fields[name] != nil, "\(name)")
    }
    await server.stop()
  }
}
