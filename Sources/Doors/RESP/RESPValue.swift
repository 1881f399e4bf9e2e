import NIOCore

/// The RESP dialect a connection speaks: RESP2 by default, RESP3 after `HELLO 3`.
public enum RESPProtocolVersion: Sendable {
  case resp2
  case resp3
}

/// A reply. RESP3-only types fall back in RESP2 as Redis 7.0 does: map → flat array, set and
/// push → array, double, big number and verbatim string → bulk string, boolean → integer 1 or 0.
public enum RESPValue: Sendable {
  case simpleString(String)
  case error(String)
  case integer(Int)
  case bulkString(ByteBuffer)
  /// Redis's `addReplyNull`: `$-1` in RESP2, `_` in RESP3.
  case null
  /// Redis's `addReplyNullArray`: `*-1` in RESP2, `_` in RESP3.
  case nullArray
  case array([RESPValue])
  case map([(key: RESPValue, value: RESPValue)])
  case set([RESPValue])
  case double(Double)
  /// A double already formatted, such as Redis's `addReplyHumanLongDouble` text: `,text` in
  /// RESP3, a bulk string in RESP2.
  case formattedDouble(String)
  case boolean(Bool)
  /// Decimal digits, with an optional leading `-`.
  case bigNumber(String)
  /// `format` is three characters, such as `txt` or `mkd`.
  case verbatimString(format: String, text: String)
  case push([RESPValue])
  /// A reply already encoded for the connection's protocol, written as it is: hot paths build
  /// their bytes directly (`RESPWriter`) instead of a tree of values.
  case encoded(ByteBuffer)

  public func write(to buffer: inout ByteBuffer, protocol version: RESPProtocolVersion) {
    let resp3 = version == .resp3
    switch self {
    case .simpleString(let text): buffer.writeLine(prefix: "+", text)
    case .error(let text): buffer.writeLine(prefix: "-", text)
    case .integer(let value): buffer.writeHeader(":", value)
    case .bulkString(var bytes):
      buffer.writeHeader("$", bytes.readableBytes)
      buffer.writeBuffer(&bytes)
      buffer.writeStaticString("\r\n")
    case .null: buffer.writeStaticString(resp3 ? "_\r\n" : "$-1\r\n")
    case .nullArray: buffer.writeStaticString(resp3 ? "_\r\n" : "*-1\r\n")
    case .array(let elements): buffer.writeAggregate("*", elements, version)
    case .set(let elements): buffer.writeAggregate(resp3 ? "~" : "*", elements, version)
    case .push(let elements): buffer.writeAggregate(resp3 ? ">" : "*", elements, version)
    case .map(let pairs):
      buffer.writeHeader(resp3 ? "%" : "*", resp3 ? pairs.count : pairs.count * 2)
      for (key, value) in pairs {
        key.write(to: &buffer, protocol: version)
        value.write(to: &buffer, protocol: version)
      }
    case .double(let value):
      if resp3 {
        buffer.writeLine(prefix: ",", formatRedisDouble(value))
      } else {
        buffer.writeBulkString(formatRedisDouble(value))
      }
    case .encoded(let bytes): buffer.writeImmutableBuffer(bytes)
    case .formattedDouble(let text):
      if resp3 { buffer.writeLine(prefix: ",", text) } else { buffer.writeBulkString(text) }
    case .boolean(let value):
      if resp3 {
        buffer.writeStaticString(value ? "#t\r\n" : "#f\r\n")
      } else {
        buffer.writeStaticString(value ? ":1\r\n" : ":0\r\n")
      }
    case .bigNumber(let digits):
      if resp3 { buffer.writeLine(prefix: "(", digits) } else { buffer.writeBulkString(digits) }
    case .verbatimString(let format, let text):
      if resp3 {
        buffer.writeHeader("=", format.utf8.count + 1 + text.utf8.count)
        buffer.writeString(format)
        buffer.writeStaticString(":")
        buffer.writeString(text)
        buffer.writeStaticString("\r\n")
      } else {
        buffer.writeBulkString(text)
      }
    }
  }
}

extension ByteBuffer {
  fileprivate mutating func writeHeader(_ prefix: StaticString, _ value: Int) {
    writeStaticString(prefix)
    writeString(String(value))
    writeStaticString("\r\n")
  }

  /// A line-framed string: CR and LF inside it would end the frame early, so they become spaces,
  /// as in Redis's formatted error replies.
  fileprivate mutating func writeLine(prefix: StaticString, _ text: String) {
    writeStaticString(prefix)
    if text.utf8.contains(where: { $0 == 13 || $0 == 10 }) {
      writeBytes(text.utf8.map { $0 == 13 || $0 == 10 ? UInt8(ascii: " ") : $0 })
    } else {
      writeString(text)
    }
    writeStaticString("\r\n")
  }

  fileprivate mutating func writeBulkString(_ text: String) {
    writeHeader("$", text.utf8.count)
    writeString(text)
    writeStaticString("\r\n")
  }

  fileprivate mutating func writeAggregate(
    _ prefix: StaticString, _ elements: [RESPValue], _ version: RESPProtocolVersion
  ) {
    writeHeader(prefix, elements.count)
    for element in elements { element.write(to: &self, protocol: version) }
  }
}
