/// One reply's bytes, written by hand: for hot paths where a tree of `RESPValue`s per element
/// (and a String per number) costs more than the work behind the reply.
public struct RESPWriter {
  public private(set) var bytes: [UInt8] = []
  public let version: RESPProtocolVersion

  public init(protocol version: RESPProtocolVersion, capacity: Int) {
    self.version = version
    bytes.reserveCapacity(capacity)
  }

  /// The reply, to be written as it is.
  public var reply: RESPValue { .encoded(bytes) }

  /// `*n`: an array of `count` elements follows.
  public mutating func arrayHeader(_ count: Int) { line(UInt8(ascii: "*"), count) }

  public mutating func bulk(_ payload: UnsafeRawBufferPointer) {
    line(UInt8(ascii: "$"), payload.count)
    bytes.append(contentsOf: payload)
    endLine()
  }

  public mutating func integer(_ value: Int) { line(UInt8(ascii: ":"), value) }

  /// A double already formatted: `,text` in RESP3, a bulk string in RESP2.
  public mutating func formattedDouble(_ text: UnsafeRawBufferPointer) {
    guard version == .resp3 else { return bulk(text) }
    bytes.append(UInt8(ascii: ","))
    bytes.append(contentsOf: text)
    endLine()
  }

  /// A type byte, a number and CRLF: the header line of arrays and bulk strings, and integers.
  private mutating func line(_ type: UInt8, _ value: Int) {
    bytes.append(type)
    appendDecimal(value)
    endLine()
  }

  private mutating func endLine() {
    bytes.append(13)
    bytes.append(10)
  }

  private mutating func appendDecimal(_ value: Int) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var rest = value.magnitude
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
        rest /= 10
      } while rest > 0
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }
}
