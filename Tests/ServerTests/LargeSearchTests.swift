import Dispatch
import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

/// Issue 23: a search whose reply is the whole set (tens of megabytes on a large key) must not
/// hold its event loop, and every other connection on it, until the reply is written.
@Suite("Large searches and the event loop", .serialized)
struct LargeSearchTests {
  static let members = 50_000

  /// Fills `world` with members spread over the globe, in GEOADDs of 1,000.
  static func load(_ connection: RESPConnection) throws {
    var state: UInt64 = 5
    func next() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(1 << 53)
    }
    var pipeline: [UInt8] = []
    for b in 0..<(members / 1000) {
      var args = ["GEOADD", "world"]
      for i in 0..<1000 {
        args += [String(-180 + 360 * next()), String(-85 + 170 * next()), "m\(b * 1000 + i)"]
      }
      pipeline += RESPConnection.frame(args)
    }
    try connection.send(pipeline)
    for _ in 0..<(members / 1000) { #expect(try connection.reply().text == ":1000\r\n") }
  }

  /// Another client's PING round trips on the same (single) event loop while one client runs
  /// whole-world searches. Before, each search held the loop for all its run; now it runs on
  /// the thread pool.
  @Test("PINGs on the loop stay fast while another client runs whole-world searches")
  func pingsWhileWorldSearches() async throws {
    let server = try await TestServer { $0.threads = 1 }
    let searcher = try RESPConnection(port: server.port, timeoutSeconds: 60)
    try Self.load(searcher)
    let pinger = try RESPConnection(port: server.port)
    #expect(try pinger.command("PING").text == "+PONG\r\n")

    let searches = 3
    let done = Atomic<Bool>(false)
    let found = Mutex<[Int]>([])
    let thread = Thread {
      defer { done.store(true, ordering: .releasing) }
      for _ in 0..<searches {
        guard
          case .array(let members)? = try? searcher.command(
            "GEOSEARCH", "world", "FROMLONLAT", "0", "0", "BYRADIUS", "20000", "km", "ASC"
          ).value
        else { return found.withLock { $0.append(-1) } }
        found.withLock { $0.append(members.count) }
      }
    }
    thread.start()
    var latencies: [Double] = []
    while !done.load(ordering: .acquiring) {
      let started = DispatchTime.now().uptimeNanoseconds
      #expect(try pinger.command("PING").text == "+PONG\r\n")
      latencies.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
      usleep(1000)
    }
    #expect(found.withLock { $0 } == Array(repeating: Self.members, count: searches))
    latencies.sort()
    let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
    let worst = latencies.last ?? 0
    print(
      "PING during \(searches) whole-world searches: \(latencies.count) PINGs, "
        + "median \(String(format: "%.2f", latencies[latencies.count / 2])) ms, "
        + "p99 \(String(format: "%.2f", p99)) ms, max \(String(format: "%.2f", worst)) ms")
    #expect(latencies.count > 20)
    #expect(worst < Self.pingBound, "a PING waited \(worst) ms")
    await server.stop()
  }

  /// With the search on the loop, PING waited as long as a search: 1,379 ms at most here (debug
  /// build, 50,000 members). Off the loop, 51 ms at most alone, 69 ms with other suites running
  /// on a two-core machine already loaded by other builds: the bound leaves room for that.
  static let pingBound = 200.0

  /// A large search pipelined between other commands keeps its place: in the replies, and in
  /// what it sees (the connection's next commands wait for it).
  @Test("a whole-world search run off the loop runs and answers in order among pipelined commands")
  func largeSearchKeepsReplyOrder() async throws {
    let server = try await TestServer { $0.threads = 1 }
    let connection = try RESPConnection(port: server.port, timeoutSeconds: 60)
    try Self.load(connection)
    var pipeline: [UInt8] = []
    for i in 0..<2 {
      pipeline += RESPConnection.frame(["ECHO", "before \(i)"])
      pipeline += RESPConnection.frame([
        "GEOSEARCH", "world", "FROMLONLAT", "10", "10", "BYBOX", "40000", "40000", "km", "DESC",
      ])
      pipeline += RESPConnection.frame(["GEOADD", "world", "1", "1", "added\(i)"])
      pipeline += RESPConnection.frame(["ECHO", "after \(i)"])
    }
    try connection.send(pipeline)
    for i in 0..<2 {
      #expect(try connection.reply().text == "$\("before \(i)".utf8.count)\r\nbefore \(i)\r\n")
      guard case .array(let found) = try connection.reply().value else {
        Issue.record("search \(i) did not answer an array")
        continue
      }
      // The members added before it, and not the one added after it.
      #expect(found.count == Self.members + i)
      #expect(try connection.reply().text == ":1\r\n")
      #expect(try connection.reply().text == "$\("after \(i)".utf8.count)\r\nafter \(i)\r\n")
    }
    await server.stop()
  }
}
