import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A throwaway `redis-server` on a free loopback port, with nothing persisted, driven through
/// `redis-cli` reading commands from a file.
final class RedisServer {
  struct NotInstalled: Error, CustomStringConvertible {
    var description: String {
      "redis-server and redis-cli must be on the PATH for the Redis comparison tests "
        + "(apt-get install -y redis-server redis-tools)"
    }
  }

  struct StartFailed: Error {}

  let port: Int
  private let server: Process
  private let cli: URL
  private let directory: URL

  init() throws {
    guard let serverURL = Self.executable("redis-server"), let cliURL = Self.executable("redis-cli")
    else { throw NotInstalled() }
    cli = cliURL
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "geodesy-redis-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    port = try Self.freeLoopbackPort()
    server = Process()
    server.executableURL = serverURL
    server.currentDirectoryURL = directory
    server.arguments = [
      "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
      "--dir", directory.path,
    ]
    server.standardOutput = FileHandle.nullDevice
    server.standardError = FileHandle.nullDevice
    try server.run()
    for _ in 0..<100 {
      if (try? run([["PING"]])) == ["PONG"] { return }
      usleep(50_000)
    }
    stop()
    throw StartFailed()
  }

  deinit { stop() }

  /// Shuts the server down by command: it inherits the test runner's blocked signals, so
  /// SIGTERM would stay pending. SIGKILL, which cannot be blocked, is the fallback.
  func stop() {
    if server.isRunning {
      _ = try? run([["SHUTDOWN", "NOSAVE"]])
      for _ in 0..<40 where server.isRunning { usleep(50_000) }
      if server.isRunning { kill(server.processIdentifier, SIGKILL) }
      server.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs the commands in order and returns redis-cli's output lines (nested replies flattened,
  /// one value a line). Arguments must not contain spaces or quotes.
  func run(_ commands: [[String]]) throws -> [String] {
    let name = UUID().uuidString
    let input = directory.appendingPathComponent("\(name).in")
    let output = directory.appendingPathComponent("\(name).out")
    try (commands.map { $0.joined(separator: " ") }.joined(separator: "\n") + "\n")
      .write(to: input, atomically: true, encoding: .utf8)
    FileManager.default.createFile(atPath: output.path, contents: nil)
    let process = Process()
    process.executableURL = cli
    process.arguments = ["-h", "127.0.0.1", "-p", "\(port)"]
    process.standardInput = try FileHandle(forReadingFrom: input)
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let text = try String(contentsOf: output, encoding: .utf8)
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
  }

  private static func executable(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").lazy
      .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// Binds port 0 on the loopback interface to let the kernel pick an unused port.
  private static func freeLoopbackPort() throws -> Int {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw StartFailed() }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw StartFailed() }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
