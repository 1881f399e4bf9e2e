import Foundation
import RedisTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Descriptor exhaustion, as the attack: `cardatlas serve` under `ulimit -n 128`, idle HTTP
/// connections opened until the server turns them away. RESP must still answer and the store
/// still write, and the server must not spin; then, RESP flooded past the limit, neither
/// listener may spin on its failing accept (`AcceptPause`).
@Suite("HTTP descriptor reserve")
struct HTTPDescriptorTests {
  /// The server, its RESP and HTTP ports, under the lowered limit.
  static func start(_ directory: String) throws -> (ChildProcess, resp: UInt16, http: Int) {
    let (resp, http) = (try RedisProcess.freeLoopbackPort(), try RedisProcess.freeLoopbackPort())
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", #"ulimit -n 128 && exec "$0" "$@""#, try CardAtlasExecutable.url().path,
      "serve", "--port", "\(resp)", "--http-port", "\(http)", "--data", directory,
      "--threads", "2", "--log-level", "warning", "--http-header-timeout", "30",
      "--http-idle-timeout", "30", "--http-max-connections-per-address", "1000",
      "--http-reserved-descriptors", "32",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (process, resp, Int(http))
  }

  /// The CPU time the process has used (utime + stime of /proc/<pid>/stat).
  static func cpuTime(_ pid: Int32) -> Duration {
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
    let ticks = fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    return .milliseconds(ticks * 1000 / sysconf(Int32(_SC_CLK_TCK)))
  }

  /// The share of one core the process used over the next 2 s.
  static func coresUsed(_ pid: Int32) -> Double {
    let before = cpuTime(pid)
    usleep(2_000_000)
    return (cpuTime(pid) - before) / .seconds(2)
  }

  @Test(
    "under ulimit -n 128, idle HTTP connections are turned away before RESP and the store starve")
  func descriptorReserve() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-fd-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (process, resp, http) = try Self.start(directory)
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var ready = false
    for _ in 0..<200 where !ready {
      usleep(50_000)
      ready =
        (try? RESPConnection(port: resp).command("PING").text) == "+PONG\r\n"
        && (try? HTTPSocket(port: http)) != nil
    }
    try #require(ready)

    // Idle connections, more than the limit allows: the first are served, the rest closed.
    var idle = (0..<120).compactMap { _ in try? HTTPSocket(port: http) }
    var dropped: [HTTPSocket] = []
    // Until the server has taken them all in: no more closed in the last 300 ms (3 s at most).
    for _ in 0..<10 {
      usleep(300_000)
      for socket in idle { socket.read(within: .zero) }
      let closed = idle.filter { $0.closedAt != nil }
      if !closed.isEmpty && closed.count == dropped.count { break }
      dropped = closed
    }
    idle.removeAll { $0.closedAt != nil }
    #expect(idle.count > 10 && dropped.count > 10, "served \(idle.count), dropped \(dropped.count)")
    #expect(dropped.allSatisfy { $0.received.isEmpty }, "closed at once, without a response")
    #expect(idle.first?.get("/openapi.json") == 200, "those served are served")

    // RESP answers, the store writes, and nothing spins.
    let c = try RESPConnection(port: resp)
    #expect(try c.command("PING").text == "+PONG\r\n")
    #expect(try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")["id"] is Int)
    #expect(try c.command("GEOADD", "places", "2.35", "48.85", "paris").text == ":1\r\n")
    let calm = Self.coresUsed(process.processIdentifier)
    #expect(calm < 0.3, "\(calm) of a core with the HTTP budget spent")

    // RESP connections past the limit, then HTTP ones: both listeners' accepts fail with
    // EMFILE, and must pause, not spin.
    var flood = (0..<80).compactMap { _ in try? RESPConnection(port: resp, timeoutSeconds: 1) }
    var waiting = (0..<10).compactMap { _ in try? HTTPSocket(port: http) }
    usleep(300_000)
    let flooded = Self.coresUsed(process.processIdentifier)
    #expect(flooded < 0.3, "\(flooded) of a core with accept failing")
    #expect(process.isRunning, "out of descriptors, the server lives on")

    // All closed, both sides serve again.
    flood.removeAll()
    waiting.removeAll()
    idle.removeAll()
    var pong: String?
    for _ in 0..<50 where pong != "+PONG\r\n" {
      usleep(100_000)
      pong = try? RESPConnection(port: resp, timeoutSeconds: 1).command("PING").text
    }
    #expect(pong == "+PONG\r\n")
    #expect(try HTTPSocket(port: http).get("/openapi.json") == 200)

    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
  }

  @Test(
    "under ulimit -n 64, --max-clients is lowered to fit (as Redis does): a RESP flood is refused with Redis's error while the store still writes"
  )
  func maxClientsFitTheLimit() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-fd-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let port = try RedisProcess.freeLoopbackPort()
    let process = ChildProcess()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", #"ulimit -n 64 && exec "$0" "$@""#, try CardAtlasExecutable.url().path,
      "serve", "--port", "\(port)", "--data", directory, "--threads", "2", "--log-level", "error",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    var admin: RESPConnection?
    for _ in 0..<200 where admin == nil {
      usleep(50_000)
      admin = try? RESPConnection(port: port)
      if (try? admin?.command("PING").text) != "+PONG\r\n" { admin = nil }
    }
    let c = try #require(admin)
    #expect(try c.command("CONFIG", "GET", "maxclients").text.contains("$2\r\n32\r\n"))
    // 40 more clients: those past 32 are told so, and nobody is left without an answer.
    let flood = (0..<40).compactMap { _ in try? RESPConnection(port: port) }
    let answers = flood.map { (try? $0.command("PING").text) ?? "no answer" }
    #expect(answers.filter { $0 == "+PONG\r\n" }.count == 31, "\(Set(answers))")
    #expect(answers.filter { $0 == "-ERR max number of clients reached\r\n" }.count == 9)
    #expect(try c.command("GEOADD", "k", "1", "1", "m").text == ":1\r\n")
    #expect(process.isRunning)
  }
}
