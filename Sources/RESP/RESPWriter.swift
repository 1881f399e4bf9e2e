import NIOCore

/// One reply's bytes, written by hand: for hot paths where a tree of `RESPValue`s per element
/// (and a String per number) costs more than the work behind the reply. Each element is written
/// in one step into room reserved for all of it, rather than a byte or a run at a time.
public struct RESPWriter {
  private var buffer: ByteBuffer
  public let version: RESPProtocolVersion

  public init(protocol version: RESPProtocolVersion, capacity: Int) {
    self.version = version
    buffer = ByteBufferAllocator().buffer(capacity: capacity)
  }

  /// The reply, to be written as it is.
  public var reply: RESPValue { .encoded(buffer) }

  /// `*n`: an array of `count` elements follows.
  public mutating func arrayHeader(_ count: Int) { line(UInt8(ascii: "*"), count) }

  public mutating func bulk(_ payload: UnsafeRawBufferPointer) {
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: payload.count + Self.headerRoom) {
      out in
      var i = Self.header(UInt8(ascii: "$"), payload.count, into: out)
      if let source = payload.baseAddress {
        (out.baseAddress! + i).copyMemory(from: source, byteCount: payload.count)
      }
      i += payload.count
      out[i] = 13
      out[i + 1] = 10
      return i + 2
    }
  }

  public mutating func integer(_ value: Int) { line(UInt8(ascii: ":"), value) }

  /// A double already formatted: `,text` in RESP3, a bulk string in RESP2.
  public mutating func formattedDouble(_ text: UnsafeRawBufferPointer) {
    guard version == .resp3 else { return bulk(text) }
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: text.count + 3) { out in
      out[0] = UInt8(ascii: ",")
      if let source = text.baseAddress {
        (out.baseAddress! + 1).copyMemory(from: source, byteCount: text.count)
      }
      out[text.count + 1] = 13
      out[text.count + 2] = 10
      return text.count + 3
    }
  }

  /// A type byte, a number and CRLF: the header line of arrays and bulk strings, and integers.
  private mutating func line(_ type: UInt8, _ value: Int) {
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.headerRoom) {
      Self.header(type, value, into: $0)
    }
  }

  /// Room for a header: the type byte, a sign, 19 digits, CRLF.
  private static let headerRoom = 24

  /// Writes a header at the start of `out`; returns its length.
  private static func header(_ type: UInt8, _ value: Int, into out: UnsafeMutableRawBufferPointer)
    -> Int
  {
    out[0] = type
    var i = 1
    if value < 0 {
      out[1] = UInt8(ascii: "-")
      i = 2
    }
    var rest = value.magnitude
    var digits = 1
    var probe = rest
    while probe >= 10 {
      probe /= 10
      digits += 1
    }
    var end = i + digits
    while end > i {
      end -= 1
      out[end] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
      rest /= 10
    }
    i += digits
    out[i] = 13
    out[i + 1] = 10
    return i + 2
  }
}
