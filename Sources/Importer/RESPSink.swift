import Cards
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes to a running daemon as its admin: each chunk's CARD.IMPORT commands pipelined on one
/// connection, their replies read in order.
public final class RESPSink: CardSink {
  private let connection: Mutex<RESPConnection>
  /// The exchange of the chunk sent last, which the next one waits for.
  private let last = Mutex<Task<[Result<ImportOutcome, RowFailure>], any Error>?>(nil)

  /// Connects to `host:port` and signs in with the admin password (`--requirepass`), if any.
  public init(server: String, password: String?) throws {
    var connection = try RESPConnection(server)
    if let password {
      connection.send([["AUTH", password]])
      if case .error(let message) = try connection.reply() {
        connection.disconnect()
        throw ImportError.server(message)
      }
    }
    self.connection = Mutex(connection)
  }

  public func send(_ requests: [CardWriteRequest]) -> Task<
    [Result<ImportOutcome, RowFailure>], any Error
  > {
    last.withLock { last in
      let previous = last
      let task = Task {
        // One chunk's commands and replies at a time, in the order they were sent.
        _ = await previous?.result
        return try exchange(requests)
      }
      last = task
      return task
    }
  }

  private func exchange(_ requests: [CardWriteRequest]) throws -> [Result<
    ImportOutcome, RowFailure
  >] {
    try connection.withLock { connection in
      connection.send(
        requests.map { ["CARD.IMPORT", $0.ownerEmail, $0.externalId, $0.json] })
      try connection.flush()
      return try requests.map { _ in
        switch try connection.reply() {
        case .error(let message): return .failure(RowFailure(message: message))
        case .array(let items):
          guard case .text(let name)? = items.first, let outcome = ImportOutcome(rawValue: name)
          else { throw ImportError.server("unexpected reply to CARD.IMPORT") }
          return .success(outcome)
        default: throw ImportError.server("unexpected reply to CARD.IMPORT")
        }
      }
    }
  }

  public func close() { connection.withLock { $0.disconnect() } }
}

/// A RESP2 reply, as far as the importer reads them.
enum RESPReply {
  case text(String)
  case error(String)
  case integer(Int)
  case null
  case array([RESPReply])
}

/// A blocking RESP2 client connection: commands buffered by `send`, written by `flush`.
struct RESPConnection: ~Copyable {
  private let fd: Int32
  private var output: [UInt8] = []
  private var input: [UInt8] = []
  private var position = 0

  init(_ server: String) throws {
    guard let colon = server.lastIndex(of: ":"),
      let port = UInt16(server[server.index(after: colon)...])
    else { throw ImportError.server("--server takes host:port, got \(server)") }
    let host = String(server[..<colon])
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
      throw ImportError.server("cannot resolve \(host)")
    }
    defer { freeaddrinfo(list) }
    var candidate: UnsafeMutablePointer<addrinfo>? = first
    while let info = candidate {
      let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, 0)
      if fd >= 0, connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        return
      }
      if fd >= 0 { _ = close(fd) }
      candidate = info.pointee.ai_next
    }
    throw ImportError.server("cannot connect to \(server): \(String(cString: strerror(errno)))")
  }

  mutating func send(_ commands: [[String]]) {
    for command in commands {
      output.append(contentsOf: "*\(command.count)\r\n".utf8)
      for argument in command {
        output.append(contentsOf: "$\(argument.utf8.count)\r\n".utf8)
        output.append(contentsOf: argument.utf8)
        output.append(contentsOf: "\r\n".utf8)
      }
    }
  }

  mutating func flush() throws {
    var sent = 0
    while sent < output.count {
      let n = output.withUnsafeBytes { write(fd, $0.baseAddress! + sent, $0.count - sent) }
      guard n > 0 else { throw ImportError.server("connection lost while writing") }
      sent += n
    }
    output.removeAll(keepingCapacity: true)
  }

  mutating func reply() throws -> RESPReply {
    if !output.isEmpty { try flush() }
    let line = try readLine()
    guard let kind = line.first else { throw ImportError.server("empty reply line") }
    let rest = String(decoding: line.dropFirst(), as: UTF8.self)
    switch kind {
    case UInt8(ascii: "+"): return .text(rest)
    case UInt8(ascii: "-"): return .error(rest)
    case UInt8(ascii: ":"): return .integer(Int(rest) ?? 0)
    case UInt8(ascii: "$"):
      guard let length = Int(rest) else { throw ImportError.server("bad bulk length") }
      if length < 0 { return .null }
      try fill(length + 2)
      let text = String(decoding: input[position..<position + length], as: UTF8.self)
      position += length + 2
      return .text(text)
    case UInt8(ascii: "*"):
      guard let count = Int(rest) else { throw ImportError.server("bad array length") }
      if count < 0 { return .null }
      return .array(try (0..<count).map { _ in try reply() })
    default: throw ImportError.server("unexpected reply type")
    }
  }

  private mutating func readLine() throws -> ArraySlice<UInt8> {
    while true {
      if let end = input[position...].firstIndex(of: 0x0A) {
        let line = input[position..<max(position, end - 1)]
        position = end + 1
        return line
      }
      try receive()
    }
  }

  private mutating func fill(_ count: Int) throws {
    while input.count - position < count { try receive() }
  }

  private mutating func receive() throws {
    if position > 0 {
      input.removeFirst(position)
      position = 0
    }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { throw ImportError.server("connection closed by the server") }
    input.append(contentsOf: chunk[..<n])
  }

  func disconnect() { _ = close(fd) }
}
