import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A raw HTTP client socket, for what URLSession does not do: send a request a line at a time,
/// hold a connection idle, connect from another loopback address, and see when the server
/// closes. Loopback only.
final class HTTPSocket {
  struct Failed: Error, CustomStringConvertible {
    let description: String
  }

  private let fd: Int32
  /// What the server sent so far.
  private(set) var received: [UInt8] = []
  /// When the server's side was seen closed (a failed send, the end of stream or a reset).
  private(set) var closedAt: ContinuousClock.Instant?
  /// Nothing more to read: what arrived before a failed send is still read.
  private var drained = false
  let openedAt = ContinuousClock.now

  var text: String { String(decoding: received, as: UTF8.self) }

  /// Connects to 127.0.0.1:`port` from `source` (another 127.x.y.z is another client address).
  init(port: Int, from source: String = "127.0.0.1") throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failed(description: "socket() failed (errno \(errno))") }
    guard Self.withAddress(source, 0, { bind(fd, $0, $1) }) == 0 else {
      throw Failed(description: "cannot bind \(source) (errno \(errno))")
    }
    guard Self.withAddress("127.0.0.1", UInt16(port), { connect(fd, $0, $1) }) == 0 else {
      throw Failed(description: "cannot connect to port \(port) (errno \(errno))")
    }
  }

  deinit { close(fd) }

  private static func withAddress(
    _ host: String, _ port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// Sends `text`; false once the server has closed the connection.
  @discardableResult
  func send(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    let sent = bytes.withUnsafeBytes {
      Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
    }
    if sent != bytes.count { markClosed() }
    return sent == bytes.count
  }

  /// Reads what arrives within `timeout` (zero: what is there now), stopping early at the end
  /// of the stream or once `done` holds for what was received. True while the connection is open.
  @discardableResult
  func read(within timeout: Duration, until done: ([UInt8]) -> Bool = { _ in false }) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !drained && !done(received) {
      let left = max(.zero, deadline - .now)
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(left / .milliseconds(1))) > 0 else { break }
      var chunk = [UInt8](repeating: 0, count: 16384)
      let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
      if n > 0 {
        received += chunk[..<n]
      } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
        drained = true
        markClosed()
      }
    }
    return closedAt == nil
  }

  /// Sends a GET of `path` and reads the whole response (by its Content-Length); its status,
  /// or nil if none came whole within `timeout`.
  func get(_ path: String, within timeout: Duration = .seconds(5)) -> Int? {
    received = []
    send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    read(within: timeout, until: Self.isWholeResponse)
    guard Self.isWholeResponse(received) else { return nil }
    return status
  }

  /// The status of the response received, if its status line is in.
  var status: Int? {
    let line = text.prefix { $0 != "\r" }
    guard line.hasPrefix("HTTP/1.1 "), text.contains("\r\n") else { return nil }
    return Int(line.dropFirst(9).prefix(3))
  }

  private static func isWholeResponse(_ bytes: [UInt8]) -> Bool {
    let blankLine: [UInt8] = [13, 10, 13, 10]
    guard
      let end = bytes.indices.dropLast(3).first(where: {
        bytes[$0..<$0 + 4].elementsEqual(blankLine)
      })
    else { return false }
    let length = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
      .split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
      .flatMap { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }
    return bytes.count - (end + 4) >= length ?? 0
  }

  private func markClosed() {
    if closedAt == nil { closedAt = .now }
  }

  /// How long the connection lived, once closed.
  var lifetime: Duration? { closedAt.map { $0 - openedAt } }
}
