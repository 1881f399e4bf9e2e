import Datasets
import Foundation
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The protocol fuzzer: random and mutated RESP and inline frames sent to a real `cardatlas`
/// process over many sockets, in batches, for a bounded time. After each batch the server must
/// answer PING, and its resident memory must stay within a bound of what it held after the
/// first batches (its data does not grow: the frames' keys are few and small).
///
/// Environment: `CARDATLAS_PROTOCOL_FUZZ_SECONDS` (default 40), `CARDATLAS_PROTOCOL_FUZZ_SEED`
/// (default: random, printed on failure), `CARDATLAS_PROTOCOL_FUZZ_RSS_MB` (the bound, default
/// 32; 0 skips the check, for sanitized builds, whose allocators hold freed memory on purpose).
@Suite("Protocol fuzzing over sockets")
struct ProtocolFuzzTests {
  static func setting(_ name: String, _ fallback: UInt64) -> UInt64 {
    ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) } ?? fallback
  }

  @Test("hostile byte streams on many connections neither stop the server nor grow its memory")
  func hostileStreams() throws {
    let seconds = Double(Self.setting("CARDATLAS_PROTOCOL_FUZZ_SECONDS", 40))
    let seed = Self.setting("CARDATLAS_PROTOCOL_FUZZ_SEED", UInt64.random(in: 0...UInt64.max))
    // 32 MB, plus what the sign-ins that an `AUTH <user> <password>` starts may hold while
    // they run: scrypt's 16 MiB each, one per core at most (Accounts' SlowWork).
    let signIns = 16 * ProcessInfo.processInfo.activeProcessorCount
    let rssBoundKB =
      Int(Self.setting("CARDATLAS_PROTOCOL_FUZZ_RSS_MB", UInt64(32 + signIns))) * 1024
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-protofuzz-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(directory: directory)
    try FrameGenerator.preload(port: server.port)

    var generator = FrameGenerator(seed: seed)
    let started = Date()
    var batches = 0
    var frames = 0
    var baselineKB: Int?
    var peakKB = 0
    let warmup = 5
    while Date().timeIntervalSince(started) < seconds {
      let batch = generator.batch()
      frames += batch.streams.reduce(0) { $0 + $1.frames }
      batch.run(port: server.port)
      batches += 1
      let context = "seed \(seed), batch \(batches)"
      guard server.isRunning, Self.answersPing(port: server.port) else {
        let saved = batch.save(directory: FileManager.default.temporaryDirectory.path)
        Issue.record("the server stopped answering after \(context); its streams are in \(saved)")
        return
      }
      let rss = try Self.residentKB(pid: server.processIdentifier)
      if batches == warmup { baselineKB = rss }
      if let baselineKB, batches > warmup {
        peakKB = max(peakKB, rss)
        if rssBoundKB > 0 && rss > baselineKB + rssBoundKB {
          Issue.record(
            "RSS grew from \(baselineKB) kB after batch \(warmup) to \(rss) kB (\(context))")
          return
        }
      }
    }
    #expect(batches > warmup, "at least a few batches ran (\(batches) in \(seconds) s)")
    let check = try RESPConnection(port: server.port)
    #expect(try check.command("SET", "after-fuzz", "ok").text == "+OK\r\n")
    #expect(try check.command("GET", "after-fuzz").text == "$2\r\nok\r\n")
    print(
      "protocol fuzz: \(batches) batches, \(frames) frames, seed \(seed); RSS \(baselineKB ?? 0) kB"
        + " after batch \(warmup), peak \(peakKB) kB after it")
  }

  static func answersPing(port: UInt16) -> Bool {
    guard let connection = try? RESPConnection(port: port, timeoutSeconds: 10) else {
      return false
    }
    return (try? connection.command("PING"))?.text == "+PONG\r\n"
  }

  /// VmRSS from /proc/<pid>/status, in kB.
  static func residentKB(pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { throw RESPConnection.Failed(description: "no VmRSS for \(pid)") }
    return kb
  }
}

/// Streams of commands that are valid, nearly valid and not valid at all, the ways a broken or
/// hostile client sends them.
struct FrameGenerator {
  var random: SeededGenerator

  init(seed: UInt64) { random = SeededGenerator(seed: seed) }

  /// A GEO key of 2,000 points and a few strings, for the commands to find.
  static func preload(port: UInt16) throws {
    let c = try RESPConnection(port: port)
    var args = ["GEOADD", "g"]
    for i in 0..<2000 {
      args += [String(Double(i % 360) - 179.5), String(Double(i % 170) - 84.5), "m\(i)"]
    }
    _ = try c.command(args)
    _ = try c.command("SET", "s", "value")
    _ = try c.command(
      "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269",
      "37.502669", "Catania")
  }

  /// Commands with typical arguments, as templates; any argument may then be swapped for an
  /// edge value. No CONFIG SET (a password or `maxclients 1` would lock the checks out), no
  /// BACKUP (it writes files), no DEBUG.
  static let templates: [[String]] = [
    ["PING"], ["ECHO", "x"], ["QUIT"], ["AUTH", "pw"], ["HELLO", "3"], ["HELLO", "2"],
    ["GEOADD", "g", "1", "2", "m1"],
    ["GEOADD", "k", "NX", "CH", "13.3", "38.1", "a", "0", "0", "b"],
    ["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "500", "km", "ASC", "COUNT", "10"],
    ["GEOSEARCH", "g", "FROMMEMBER", "m5", "BYBOX", "100", "100", "mi", "DESC", "WITHDIST"],
    ["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "20000", "km", "WITHCOORD", "WITHHASH"],
    ["GEOSEARCHSTORE", "dst", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "900", "km", "STOREDIST"],
    ["GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "ASC", "COUNT", "1"],
    ["GEORADIUSBYMEMBER", "g", "m1", "300", "km", "COUNT", "5", "ANY", "STORE", "dst2"],
    ["GEODIST", "Sicily", "Palermo", "Catania", "km"], ["GEOPOS", "g", "m1", "nobody"],
    ["GEOHASH", "Sicily", "Palermo"], ["ZRANGE", "g", "0", "-1", "WITHSCORES"],
    ["ZRANGE", "g", "0", "+inf", "BYSCORE", "LIMIT", "1", "5"], ["ZREM", "g", "m7"],
    ["ZCARD", "g"], ["ZSCORE", "g", "m3"], ["DEL", "k", "dst"], ["EXISTS", "g", "s"],
    ["TYPE", "g"], ["KEYS", "*"], ["KEYS", "m?[0-9]*"], ["SCAN", "0", "MATCH", "*", "COUNT", "5"],
    ["SCAN", "3", "TYPE", "zset"], ["SCAN", "1", "COUNT", "10"], ["DBSIZE"], ["SELECT", "1"],
    ["SELECT", "0"], ["FLUSHDB"],
    ["SET", "k", "v", "NX", "GET"], ["GET", "s"], ["INFO"], ["INFO", "clients"],
    ["COMMAND", "COUNT"], ["COMMAND", "INFO", "geoadd"], ["CLIENT", "SETNAME", "fuzz"],
    ["CLIENT", "LIST"], ["CLIENT", "INFO"], ["CONFIG", "GET", "*max*"], ["NOSUCH", "x"],
  ]

  /// Numbers at the edges of what commands read, for a numeric argument: integers at and past
  /// `Int`'s ends, floats past `Double`'s, and what is nearly a number.
  static let numbers: [String] = [
    "0", "-1", "1", "9223372036854775807", "9223372036854775807", "-9223372036854775808",
    "-9223372036854775808", "9223372036854775806", "9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "99999999999999999999", "1e308", "-1e308", "1e400", "nan", "inf",
    "-inf", "-0", "0x10", " 1", "1 ", "",
  ]

  /// Other arguments at the edges: empty and NUL-bearing strings, long ones, glob patterns with
  /// many stars, quotes and escapes.
  static let edges: [String] =
    numbers + [
      "\0", "a\0b", String(repeating: "x", count: 3000),
      String(repeating: "*a", count: 2000) + "b", "[", "\\", "\"", "'",
    ]

  /// Headers to put in place of a real one: huge, negative, malformed.
  static let headers: [String] = [
    "*-1", "*0", "*-5", "*2147483648", "*99999999999999999999", "*1048577", "*abc", "*",
    "$-1", "$-5", "$536870913", "$2147483648", "$99999999999999999999", "$", "$0x10", "$ 3",
  ]

  mutating func chance(_ p: Double) -> Bool { random.nextDouble() < p }

  mutating func pick<T>(_ options: [T]) -> T { options[random.nextInt(below: options.count)] }

  /// One command's words: a template, some arguments swapped, dropped or added.
  mutating func words() -> [[UInt8]] {
    var words = pick(Self.templates).map { Array($0.utf8) }
    // Mostly one argument swapped, so that the rest of the command still reaches what reads it.
    let focus = words.count > 1 && chance(0.6) ? 1 + random.nextInt(below: words.count - 1) : 0
    for i in words.indices.dropFirst() where i == focus || chance(0.05) {
      let numeric = Double(String(decoding: words[i], as: UTF8.self)) != nil
      words[i] = Array(pick(numeric && chance(0.8) ? Self.numbers : Self.edges).utf8)
    }
    if words.count > 1 && chance(0.1) { words.removeLast(random.nextInt(below: words.count)) }
    while chance(0.1) { words.append(Array(pick(Self.edges).utf8)) }
    if chance(0.05) { words[0] = Array(pick(Self.edges).utf8) }
    return words
  }

  /// One frame: a multibulk command, an inline one, or bytes at random; then sometimes mutated.
  mutating func frame() -> [UInt8] {
    var bytes: [UInt8]
    switch random.nextInt(below: 10) {
    case 0..<6: bytes = RESPConnection.frame(words())
    case 6..<8: bytes = inline(words())
    case 8: bytes = Array(pick(Self.headers).utf8) + [13, 10] + RESPConnection.frame(words())
    default:
      bytes = (0..<random.nextInt(below: 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
    if chance(0.3) { mutate(&bytes) }
    return bytes
  }

  /// Inline form: the words joined by spaces, quoted when they hold a space or a quote.
  mutating func inline(_ words: [[UInt8]]) -> [UInt8] {
    var line: [UInt8] = []
    for word in words {
      if !line.isEmpty { line.append(32) }
      if word.isEmpty || word.contains(where: { $0 == 32 || $0 == 34 || $0 == 39 }) || chance(0.1) {
        line += [34] + word.flatMap { $0 == 34 || $0 == 92 ? [92, $0] : [$0] } + [34]
      } else {
        line += word
      }
    }
    return line + (chance(0.5) ? [13, 10] : [10])
  }

  /// One of: a byte flipped, a NUL or CRLF put in, the end cut off, a header number replaced, a
  /// piece repeated.
  mutating func mutate(_ bytes: inout [UInt8]) {
    guard !bytes.isEmpty else { return }
    let at = random.nextInt(below: bytes.count)
    switch random.nextInt(below: 6) {
    case 0: bytes[at] ^= UInt8(truncatingIfNeeded: 1 << random.nextInt(below: 8))
    case 1: bytes.insert(0, at: at)
    case 2: bytes.insert(contentsOf: [13, 10], at: at)
    case 3: bytes.removeLast(bytes.count - at)
    case 4:
      // The number after a `*` or `$` at or after `at`.
      guard let mark = bytes[at...].firstIndex(where: { $0 == 42 || $0 == 36 }),
        let end = bytes[mark...].firstIndex(of: 13)
      else { return }
      let number = pick(["-1", "-7", "0", "2147483648", "99999999999999999999", "9", "", "x"])
      bytes.replaceSubrange((mark + 1)..<end, with: Array(number.utf8))
    default:
      let end = min(bytes.count, at + 1 + random.nextInt(below: 32))
      bytes.insert(contentsOf: bytes[at..<end], at: end)
    }
  }

  /// What one connection sends, in the pieces it sends it in, and how it ends.
  struct Stream {
    var pieces: [[UInt8]] = []
    var frames = 0
    /// Closed straight after its last piece (a reset when replies are unread), rather than
    /// half-closed and read to the end.
    var abrupt = false
  }

  struct Batch {
    var streams: [Stream]

    /// Sends the streams interleaved, a piece at a time, each socket non-blocking (what does not
    /// fit is dropped, as a stalled client's would be), reading replies only now and then.
    func run(port: UInt16) {
      let sockets = streams.map { _ in RawSocket(port: port) }
      var position = 0
      while streams.indices.contains(where: { position < streams[$0].pieces.count }) {
        for (i, stream) in streams.enumerated() where position < stream.pieces.count {
          sockets[i]?.send(stream.pieces[position])
          if position % 4 == 3 { sockets[i]?.drain() }
        }
        position += 1
      }
      // The others half-close, then read their replies until the server closes them, for at
      // most 200 ms in all.
      var open = streams.indices.compactMap { streams[$0].abrupt ? nil : sockets[$0] }
      for socket in open { socket.shutdownOutput() }
      let until = Date().addingTimeInterval(0.2)
      while !open.isEmpty && Date() < until {
        open.removeAll { !$0.drain() }
        usleep(2000)
      }
    }

    /// Writes every stream to a file for a failure's report; returns its path.
    func save(directory: String) -> String {
      let path = "\(directory)/cardatlas-protofuzz-\(UUID().uuidString).bin"
      var all: [UInt8] = []
      for stream in streams {
        all += Array("--- stream (\(stream.frames) frames)\n".utf8) + stream.pieces.flatMap { $0 }
      }
      _ = FileManager.default.createFile(atPath: path, contents: Data(all))
      return path
    }
  }

  /// A batch: 8 to 24 connections of up to 40 frames each, split at random points; one in ten
  /// batches adds 200 connections that each send a piece of a frame and hang up.
  mutating func batch() -> Batch {
    var streams: [Stream] = []
    for _ in 0..<(8 + random.nextInt(below: 17)) {
      var stream = Stream(abrupt: chance(0.3))
      var bytes: [UInt8] = []
      stream.frames = 1 + random.nextInt(below: 40)
      for _ in 0..<stream.frames { bytes += frame() }
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + 1 + random.nextInt(below: chance(0.5) ? 16 : 4096))
        stream.pieces.append(Array(bytes[start..<end]))
        start = end
      }
      streams.append(stream)
    }
    if random.nextInt(below: 10) == 0 {
      for _ in 0..<200 {
        let bytes = frame()
        streams.append(
          Stream(
            pieces: [Array(bytes.prefix(1 + random.nextInt(below: bytes.count + 1)))],
            frames: 1, abrupt: true))
      }
    }
    return Batch(streams: streams)
  }
}

/// A non-blocking client socket that never waits: sends what the kernel takes, reads what has
/// arrived, and closes on deinit.
final class RawSocket {
  private let fd: Int32

  init?(port: UInt16) {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    // deinit closes the socket: it runs when an init fails after setting every property.
    guard connected else { return nil }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  deinit { close(fd) }

  func send(_ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes {
      Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    }
  }

  /// Reads and drops what has arrived; returns false at the end of the stream or an error.
  @discardableResult
  func drain() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
      if n > 0 { continue }
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }
  }

  func shutdownOutput() { shutdown(fd, Int32(SHUT_WR)) }
}
