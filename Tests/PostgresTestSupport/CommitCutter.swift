import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP relay to the test database that loses a COMMIT, the fault a real server gives only by
/// bad luck: once armed, the first statement naming COMMIT reaches the server (so it commits)
/// or does not (so it never does), no answer comes back, every relayed connection is cut, and
/// the relay refuses new ones until `reopen()`: the database gone at the worst moment, then
/// back.
public final class CommitCutter: Sendable {
  public let port: UInt16
  private let target: UInt16
  private let listener: Int32
  private let state = Mutex(State())

  private struct State {
    var armed = false
    var forwarding = true
    var refusing = false
    var sockets: Set<Int32> = []
    var stopped = false
  }

  /// Relays a loopback port of its own to `target` on 127.0.0.1.
  public init(target: UInt16) throws {
    self.target = target
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.loopback(0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      close(fd)
      throw CutterError(description: "could not listen: errno \(errno)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        _ = getsockname(fd, $0, &length)
      }
    }
    listener = fd
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  /// The next COMMIT's answer is lost (and the COMMIT too, unless `forwarding`), and the relay
  /// refuses connections from then on.
  public func arm(forwarding: Bool) {
    state.withLock {
      $0.armed = true
      $0.forwarding = forwarding
    }
  }

  /// Whether an armed cut has happened.
  public var hasCut: Bool { state.withLock { $0.refusing } }

  /// Accepts connections again.
  public func reopen() { state.withLock { $0.refusing = false } }

  public func stop() {
    let sockets = state.withLock { s -> Set<Int32> in
      s.stopped = true
      return s.sockets
    }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
    for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else {
        if state.withLock({ $0.stopped }) { return }
        continue
      }
      let server = state.withLock { $0.refusing } ? -1 : connectTarget()
      guard server >= 0 else {
        close(client)
        continue
      }
      state.withLock { $0.sockets.formUnion([client, server]) }
      let pumps = Mutex(2)
      // The last pump to stop closes both sockets: a socket closed while the other pump could
      // still shut it down might by then be another connection's.
      let stopped = { @Sendable [self] in
        guard
          pumps.withLock({
            $0 -= 1
            return $0 == 0
          })
        else { return }
        state.withLock { $0.sockets.subtract([client, server]) }
        close(client)
        close(server)
      }
      Thread.detachNewThread { [self] in
        pump(from: client, to: server, upstream: true)
        stopped()
      }
      Thread.detachNewThread { [self] in
        pump(from: server, to: client, upstream: false)
        stopped()
      }
    }
  }

  private func connectTarget() -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.loopback(target)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return -1
    }
    return fd
  }

  /// Copies bytes one way until either side closes. Upstream, an armed relay cuts after the
  /// chunk holding COMMIT; downstream, nothing is passed on once it has.
  private func pump(from source: Int32, to sink: Int32, upstream: Bool) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    defer {
      // The other pump's read then ends too.
      shutdown(source, Int32(SHUT_RDWR))
      shutdown(sink, Int32(SHUT_RDWR))
    }
    while true {
      let count = read(source, &buffer, buffer.count)
      guard count > 0 else { return }
      let chunk = buffer[..<count]
      let cut =
        upstream
        && state.withLock { s -> Bool in
          guard s.armed, Self.contains(chunk, Array("COMMIT".utf8)) else { return false }
          s.armed = false
          s.refusing = true
          return true
        }
      if !upstream, state.withLock({ $0.refusing }) { return }
      if !cut || state.withLock({ $0.forwarding }) {
        guard Self.writeAll(sink, chunk) else { return }
      }
      if cut {
        // Time for the server to commit; then every relayed connection goes.
        usleep(100_000)
        for fd in state.withLock({ $0.sockets }) { shutdown(fd, Int32(SHUT_RDWR)) }
        return
      }
    }
  }

  private static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
      let written = bytes[offset...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  private static func contains(_ chunk: ArraySlice<UInt8>, _ word: [UInt8]) -> Bool {
    guard chunk.count >= word.count else { return false }
    let start = chunk.startIndex
    return (0...(chunk.count - word.count)).contains { i in
      chunk[(start + i)..<(start + i + word.count)].elementsEqual(word)
    }
  }

  private static func loopback(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  struct CutterError: Error, CustomStringConvertible {
    let description: String
  }
}
