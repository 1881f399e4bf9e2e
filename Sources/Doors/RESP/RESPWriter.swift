import NIOCore

/// One reply's bytes, written by hand: for hot paths where a tree of `RESPValue`s per element
/// (and a String per number) costs more than the work behind the reply. Each element is written
/// in one step into room reserved for all of it, rather than a byte or a run at a time; a reply
/// whose size is known in advance reserves once for all of its elements (`reserving`).
public struct RESPWriter {
  /// The bytes written so far.
  public private(set) var buffer: ByteBuffer
  public let version: RESPProtocolVersion

  public init(protocol version: RESPProtocolVersion, capacity: Int) {
    self.version = version
    buffer = ByteBufferAllocator().buffer(capacity: capacity)
  }

  /// A writer over `buffer`, emptied: its storage is reused when nothing else holds it.
  public init(protocol version: RESPProtocolVersion, reusing buffer: consuming ByteBuffer) {
    self.version = version
    var buffer = consume buffer
    buffer.clear()
    self.buffer = buffer
  }

  /// The reply, to be written as it is.
  public var reply: RESPValue { .encoded(buffer) }

  /// `*n`: an array of `count` elements follows.
  public mutating func arrayHeader(_ count: Int) {
    reserving(Self.headerRoom) { $0.arrayHeader(count) }
  }

  public mutating func bulk(_ payload: UnsafeRawBufferPointer) {
    reserving(Self.bulkRoom(payload.count)) { $0.bulk(payload) }
  }

  public mutating func integer(_ value: Int) {
    reserving(Self.headerRoom) { $0.integer(value) }
  }

  /// A double already formatted: `,text` in RESP3, a bulk string in RESP2.
  public mutating func formattedDouble(_ text: UnsafeRawBufferPointer) {
    reserving(Self.bulkRoom(text.count)) { $0.formattedDouble(text) }
  }

  /// Runs `body` with a cursor over `room` bytes reserved at the end of the reply; what it
  /// writes there is kept. Writing more than `room` bytes traps.
  public mutating func reserving(_ room: Int, _ body: (inout Cursor) -> Void) {
    let version = version
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { out in
      var cursor = Cursor(out: UnsafeMutableRawBufferPointer(rebasing: out[..<room]), version)
      body(&cursor)
      return cursor.written
    }
  }

  /// Room for a header: the type byte, a sign, 19 digits, CRLF.
  public static let headerRoom = 24

  /// Room for a bulk string (or a formatted double) of `count` bytes.
  public static func bulkRoom(_ count: Int) -> Int { headerRoom + count + 2 }

  /// Writes elements into reserved room, checking each against what is left.
  public struct Cursor {
    private let out: UnsafeMutableRawBufferPointer
    private let version: RESPProtocolVersion
    public private(set) var written = 0

    fileprivate init(out: UnsafeMutableRawBufferPointer, _ version: RESPProtocolVersion) {
      self.out = out
      self.version = version
    }

    public mutating func arrayHeader(_ count: Int) { line(UInt8(ascii: "*"), count) }

    public mutating func integer(_ value: Int) { line(UInt8(ascii: ":"), value) }

    public mutating func bulk(_ payload: UnsafeRawBufferPointer) {
      line(UInt8(ascii: "$"), payload.count)
      text(payload)
    }

    /// A double already formatted: `,text` in RESP3, a bulk string in RESP2.
    public mutating func formattedDouble(_ payload: UnsafeRawBufferPointer) {
      guard version == .resp3 else { return bulk(payload) }
      requireRoom(1)
      out[written] = UInt8(ascii: ",")
      written += 1
      text(payload)
    }

    /// The payload, then CRLF.
    private mutating func text(_ payload: UnsafeRawBufferPointer) {
      requireRoom(payload.count + 2)
      if let source = payload.baseAddress {
        copyShort(to: out.baseAddress! + written, from: source, count: payload.count)
      }
      written += payload.count
      out[written] = 13
      out[written + 1] = 10
      written += 2
    }

    /// Traps unless `count` more bytes fit in the room reserved.
    private func requireRoom(_ count: Int) {
      precondition(count <= out.count - written, "RESPWriter: more written than reserved")
    }

    /// A type byte, a number and CRLF: the header line of arrays and bulk strings, and integers.
    private mutating func line(_ type: UInt8, _ value: Int) {
      requireRoom(RESPWriter.headerRoom)
      out[written] = type
      var i = written + 1
      if value < 0 {
        out[i] = UInt8(ascii: "-")
        i += 1
      }
      i = writeDecimal(UInt64(value.magnitude), into: out, at: i)
      out[i] = 13
      out[i + 1] = 10
      written = i + 2
    }
  }
}

/// Copies `count` bytes: those of a member name or a number (4 to 16 bytes) as two overlapping
/// words in place, rather than a call to `memmove` each.
@inline(__always)
func copyShort(to target: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
  switch count {
  case 8...16:
    let head = source.loadUnaligned(as: UInt64.self)
    let tail = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    target.storeBytes(of: head, as: UInt64.self)
    target.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
  case 4..<8:
    let head = source.loadUnaligned(as: UInt32.self)
    let tail = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
    target.storeBytes(of: head, as: UInt32.self)
    target.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
  default:
    target.copyMemory(from: source, byteCount: count)
  }
}

/// Writes `value`'s decimal digits into `out` at `at`, where the caller has made room (20 bytes
/// at most); returns where they end. One or two digits (the lengths of most bulk strings and
/// arrays) are written at once.
@inlinable
public func writeDecimal(_ value: UInt64, into out: UnsafeMutableRawBufferPointer, at: Int) -> Int {
  if value < 100 {
    if value < 10 {
      out[at] = UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")
      return at + 1
    }
    out[at] = UInt8(truncatingIfNeeded: value / 10) &+ UInt8(ascii: "0")
    out[at + 1] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0")
    return at + 2
  }
  var digits = 1
  var rest = value / 10
  while rest > 0 {
    digits += 1
    rest /= 10
  }
  rest = value
  for i in stride(from: at + digits - 1, through: at, by: -1) {
    out[i] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
    rest /= 10
  }
  return at + digits
}
