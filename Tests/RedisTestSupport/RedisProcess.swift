import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A throwaway `redis-server` on a free loopback port, with nothing persisted: the oracle the
/// Redis-compatibility tests compare with. Spoken to over raw sockets, so malformed bytes reach it
/// unchanged.
public final class RedisProcess {
  public struct NotInstalled: Error, CustomStringConvertible {
    public init() {}

    public var description: String {
      "redis-server and redis-cli must be on the PATH for the Redis comparison tests "
        + "(apt-get install -y redis-server redis-tools)"
    }
  }

  public struct SocketFailed: Error {}

  public let port: UInt16
  private let server: ChildProcess
  private let directory: URL

  public init() throws {
    guard let executable = Self.executable("redis-server") else { throw NotInstalled() }
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cardatlas-redis-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    port = try Self.freeLoopbackPort()
    server = ChildProcess()
    server.executableURL = executable
    server.currentDirectoryURL = directory
    server.arguments = [
      "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
      "--dir", directory.path,
    ]
    server.standardOutput = FileHandle.nullDevice
    server.standardError = FileHandle.nullDevice
    try server.run()
    for _ in 0..<100 {
      if (try? exchange(Array("PING\r\n".utf8))) == "+PONG" { return }
      usleep(50_000)
    }
    stop()
    throw SocketFailed()
  }

  deinit { stop() }

  /// Shuts the server down by command, and by SIGKILL if it does not go.
  public func stop() {
    if server.isRunning {
      _ = try? exchange(Array("SHUTDOWN NOSAVE\r\n".utf8))
      for _ in 0..<40 where server.isRunning { usleep(50_000) }
      if server.isRunning { kill(server.processIdentifier, SIGKILL) }
      server.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: directory)
  }

  /// The first executable of that name on the PATH.
  public static func executable(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").lazy
      .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  /// Sends `bytes` on a new connection and returns the first reply line, without its CRLF.
  public func exchange(_ bytes: [UInt8]) throws -> String {
    let fd = try Self.socket()
    defer { close(fd) }
    var address = Self.loopback(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected, send(fd, bytes, bytes.count, 0) == bytes.count else { throw SocketFailed() }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !(reply.count >= 2 && reply.suffix(2) == [13, 10]) {
      let count = recv(fd, &chunk, chunk.count, 0)
      guard count > 0 else { throw SocketFailed() }
      reply += chunk[..<count]
    }
    return String(decoding: reply.dropLast(2), as: UTF8.self)
  }

  private static func socket() throws -> Int32 {
    #if canImport(Glibc)
      let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SocketFailed() }
    return fd
  }

  private static func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  /// Binds port 0 on loopback to let the kernel pick an unused port.
  public static func freeLoopbackPort() throws -> UInt16 {
    let fd = try socket()
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw SocketFailed() }
    return UInt16(bigEndian: address.sin_port)
  }
}
