import NIOCore

extension RESPValue {
  /// Bulk strings this large are sent from their own buffer rather than copied.
  public static let partBytes = 64 * 1024

  /// Writes the reply as `write(to:protocol:)` does, except that a bulk string of `partBytes`
  /// or more is not copied: what `buffer` holds before it, then the string itself, go to
  /// `parts`, and `buffer` goes on after it. Sending `parts`, then `buffer`, sends the reply.
  /// A 5 MB document was copied twice more (into its slot, then the output), each time into a
  /// buffer grown by doubling, to 8 MB.
  public func write(
    to buffer: inout ByteBuffer, parts: inout [ByteBuffer], protocol version: RESPProtocolVersion
  ) {
    let resp3 = version == .resp3
    switch self {
    case .bulkString(let bytes) where bytes.readableBytes >= Self.partBytes:
      buffer.writeString("$\(bytes.readableBytes)\r\n")
      parts.append(buffer)
      parts.append(bytes)
      buffer = ByteBufferAllocator().buffer(capacity: 64)
      buffer.writeStaticString("\r\n")
    case .array(let elements): Self.write(elements, "*", to: &buffer, &parts, version)
    case .set(let elements): Self.write(elements, resp3 ? "~" : "*", to: &buffer, &parts, version)
    case .push(let elements): Self.write(elements, resp3 ? ">" : "*", to: &buffer, &parts, version)
    default: write(to: &buffer, protocol: version)
    }
  }

  private static func write(
    _ elements: [RESPValue], _ prefix: String, to buffer: inout ByteBuffer,
    _ parts: inout [ByteBuffer], _ version: RESPProtocolVersion
  ) {
    buffer.writeString("\(prefix)\(elements.count)\r\n")
    for element in elements { element.write(to: &buffer, parts: &parts, protocol: version) }
  }
}
