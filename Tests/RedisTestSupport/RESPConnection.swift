import Foundation
import NIOCore
import RESP

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking RESP client over a real TCP socket, for tests that talk to CardAtlas and to a
/// real redis-server the same way. Each reply comes back parsed and as the exact bytes sent.
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
      received += chunk[..<n]
      parser.append(ByteBuffer(bytes: chunk[..<n]))
    }
  }

  /// Whether the server has closed the connection (reads end of stream within the timeout).
  public func isClosedByPeer() -> Bool {
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, 0) == 0
  }
}
