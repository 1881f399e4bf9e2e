import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking TCP connection that speaks SMTP's command and reply lines. Mail is sent from
/// the accounts' mail queue, never an event loop, so blocking (bounded by `timeout`) is fine.
final class SMTPConnection {
  private let fd: Int32
  private var buffer: [UInt8] = []

  init(host: String, port: Int, timeout: Double) throws {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &found)
    guard status == 0, let first = found else {
      throw SMTPMailer.Failure(
        description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
    }
    defer { freeaddrinfo(first) }
    var lastError = "no address"
    var candidate: UnsafeMutablePointer<addrinfo>? = first
    while let info = candidate {
      candidate = info.pointee.ai_next
      let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
      guard fd >= 0 else { continue }
      if let error = Self.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout) {
        lastError = error
        closeSocket(fd)
        continue
      }
      var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      self.fd = fd
      return
    }
    throw SMTPMailer.Failure(description: "cannot connect to \(host):\(port): \(lastError)")
  }

  /// connect(2) bounded by `timeout`: non-blocking, then poll.
  private static func connect(
    _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t,
    _ timeout: Double
  ) -> String? {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    defer { _ = fcntl(fd, F_SETFL, flags) }
    if connectSocket(fd, address, length) == 0 { return nil }
    guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
    var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    guard poll(&waiting, 1, Int32(timeout * 1000)) == 1 else { return "timed out" }
    var error: Int32 = 0
    var size = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
    return error == 0 ? nil : String(cString: strerror(error))
  }

  func close() { closeSocket(fd) }

  func write(_ text: String) throws {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let sent = bytes.withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, noSignal)
      }
      guard sent > 0 else {
        throw SMTPMailer.Failure(description: "write failed: \(String(cString: strerror(errno)))")
      }
      bytes = bytes.dropFirst(sent)
    }
  }

  /// A reply: its code and its lines' texts (a multi-line reply is "250-..." up to "250 ...").
  func reply() throws -> (code: Int, lines: [String]) {
    var lines: [String] = []
    while true {
      let line = try readLine()
      guard line.count >= 3, let code = Int(line.prefix(3)) else {
        throw SMTPMailer.Failure(description: "not an SMTP reply: \(line.prefix(80))")
      }
      lines.append(String(line.dropFirst(4)))
      if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] != "-" {
        return (code, lines)
      }
    }
  }

  func expect(_ code: Int) throws {
    let (got, lines) = try reply()
    guard got == code else {
      throw SMTPMailer.Failure(
        description: "expected \(code), got \(got) \(lines.joined(separator: " "))")
    }
  }

  /// Sends one command line and reads its reply.
  func command(_ line: String) throws -> (code: Int, lines: [String]) {
    try write(line + "\r\n")
    return try reply()
  }

  /// Sends a command and requires `code`; errors name the verb only (never AUTH's secrets).
  @discardableResult
  func command(_ line: String, expect code: Int) throws -> [String] {
    let (got, lines) = try command(line)
    guard got == code else {
      let verb = line.prefix { $0 != " " }
      let shown = verb.count == 4 && verb.allSatisfy(\.isLetter) ? verb : "AUTH"
      throw SMTPMailer.Failure(
        description: "\(shown): expected \(code), got \(got) \(lines.joined(separator: " "))")
    }
    return lines
  }

  private func readLine() throws -> String {
    while true {
      if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        var line = Array(buffer[..<end])
        buffer.removeFirst(end + 1)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
      }
      guard buffer.count < 64 * 1024 else {
        throw SMTPMailer.Failure(description: "reply too long")
      }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard read > 0 else {
        throw SMTPMailer.Failure(
          description: read == 0
            ? "connection closed" : "read failed: \(String(cString: strerror(errno)))")
      }
      buffer += chunk[..<read]
    }
  }
}

// The C functions, under names the class's own `close` and `connect` do not hide.
private func closeSocket(_ fd: Int32) { close(fd) }

private func connectSocket(
  _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t
) -> Int32 { connect(fd, address, length) }

/// A peer that closed must fail the write, not kill the process with SIGPIPE.
#if canImport(Glibc)
  private let noSignal = Int32(MSG_NOSIGNAL)
#else
  private let noSignal: Int32 = 0
#endif
