import Foundation
import NIOCore
import RESP

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking RESP client over a real TCP socket: the importer's connection to a daemon, and the
/// tests' to CardAtlas and to a real redis-server alike. Each reply comes back parsed and, when
/// `keepsRawReplies`, as the exact bytes sent. One thread may send while another reads replies
/// (the importer pipelines so): sending touches only the socket.
public final class RESPConnection: @unchecked Sendable {
  public struct Failed: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
  }

  public struct Reply {
    public let value: RESPValue
    /// The reply exactly as it arrived.
    public let raw: [UInt8]

    public var text: String { String(decoding: raw, as: UTF8.self) }
  }

  private let fd: Int32
  private var parser = RESPReplyParser()
  private var received: [UInt8] = []
  /// Off, replies are parsed without keeping their bytes (`Reply.raw` is empty): a pipelining
  /// client's thousands of replies are not copied twice.
  public var keepsRawReplies = true

  /// Connects to `host:port` (a name, an IPv4 or an IPv6 address, `[::1]:7878`), blocking on
  /// reads without a timeout: the importer waits as long as the daemon takes.
  public init(_ address: String) throws {
    guard let colon = address.lastIndex(of: ":"),
      let port = UInt16(address[address.index(after: colon)...])
    else { throw Failed(description: "not host:port: \(address)") }
    var host = String(address[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
      throw Failed(description: "cannot resolve \(host)")
    }
    defer { freeaddrinfo(list) }
    var candidate: UnsafeMutablePointer<addrinfo>? = first
    var connected: Int32 = -1
    var reason = "no address"
    while let info = candidate, connected < 0 {
      let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, 0)
      if fd >= 0, connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
        connected = fd
      } else {
        reason = String(cString: strerror(errno))
        if fd >= 0 { close(fd) }
        candidate = info.pointee.ai_next
      }
    }
    fd = connected
    guard fd >= 0 else { throw Failed(description: "cannot connect to \(address): \(reason)") }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Connects to `host:port`, from the loopback address `source` when one is given (a test's
  /// second client address: 127.0.0.2, ...).
  public init(
    port: UInt16, host: String = "127.0.0.1", source: String? = nil, timeoutSeconds: Int = 10
  ) throws {
    #if canImport(Glibc)
      fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw Failed(description: "socket() failed") }
    if let source {
      var local = sockaddr_in()
      local.sin_family = sa_family_t(AF_INET)
      local.sin_addr.s_addr = inet_addr(source)
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      guard bound else { throw Failed(description: "cannot bind to \(source)") }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    // No close here: deinit closes the socket, since a class whose stored properties are all
    // set runs deinit when its init throws (closing it twice closed other tests' descriptors).
    guard connected else { throw Failed(description: "cannot connect to \(host):\(port)") }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  deinit { close(fd) }

  /// Ends both directions: a thread blocked reading or writing returns with an error (the
  /// descriptor stays open until deinit, so it is never another connection's).
  public func disconnect() { _ = shutdown(fd, Int32(SHUT_RDWR)) }

  /// Sends commands in one write.
  public func send(commands: [[String]]) throws {
    try send(commands.flatMap { Self.frame($0) })
  }

  /// A command as a RESP multibulk frame.
  public static func frame(_ arguments: [String]) -> [UInt8] {
    frame(arguments.map { Array($0.utf8) })
  }

  public static func frame(_ arguments: [[UInt8]]) -> [UInt8] {
    var out = Array("*\(arguments.count)\r\n".utf8)
    for argument in arguments {
      out += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10]
    }
    return out
  }

  /// Sends raw bytes.
  public func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes {
        Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard n > 0 else { throw Failed(description: "send failed (errno \(errno))") }
      offset += n
    }
  }

  /// Sends one command and reads its reply.
  @discardableResult
  public func command(_ arguments: String...) throws -> Reply {
    try send(Self.frame(arguments))
    return try reply()
  }

  /// A command whose arguments are any bytes (a photo, an upload).
  public func command(bytes arguments: [[UInt8]]) throws -> Reply {
    var frame = Array("*\(arguments.count)\r\n".utf8)
    for argument in arguments {
      frame += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10]
    }
    try send(frame)
    return try reply()
  }

  public func command(_ arguments: [String]) throws -> Reply {
    try send(Self.frame(arguments))
    return try reply()
  }

  /// Reads the next reply.
  public func reply() throws -> Reply {
    while true {
      let before = parser.bufferedByteCount
      if let value = try parser.next() {
        guard keepsRawReplies else { return Reply(value: value, raw: []) }
        let used = before - parser.bufferedByteCount
        let raw = Array(received.prefix(used))
        received.removeFirst(used)
        return Reply(value: value, raw: raw)
      }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = recv(fd, &chunk, chunk.count, 0)
      guard n > 0 else {
        throw Failed(description: n == 0 ? "connection closed" : "recv timed out")
      }
      if keepsRawReplies { received += chunk[..<n] }
      parser.append(ByteBuffer(bytes: chunk[..<n]))
    }
  }

  /// Whether the server has closed the connection (reads end of stream within the timeout).
  public func isClosedByPeer() -> Bool {
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, 0) == 0
  }
}
