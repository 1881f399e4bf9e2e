import NIOCore

/// One command as the parser read it: its arguments' bytes in one buffer and where each lies,
/// so that a command holds one reference to the bytes received, not one per argument.
public struct RESPCommand: Sendable, RandomAccessCollection {
  /// The bytes the arguments lie in, from its reader index.
  @usableFromInline let bytes: ByteBuffer
  /// Each argument's offset from the reader index of `bytes`, then its length.
  @usableFromInline let spans: [Int]

  init(bytes: ByteBuffer, spans: [Int]) {
    self.bytes = bytes
    self.spans = spans
  }

  /// A command of these arguments, copied into one buffer.
  public init(_ arguments: [ByteBuffer]) {
    var bytes = ByteBuffer()
    bytes.reserveCapacity(arguments.reduce(0) { $0 + $1.readableBytes })
    var spans: [Int] = []
    spans.reserveCapacity(arguments.count * 2)
    for var argument in arguments {
      spans.append(bytes.writerIndex)
      spans.append(argument.readableBytes)
      bytes.writeBuffer(&argument)
    }
    self.init(bytes: bytes, spans: spans)
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { spans.count / 2 }

  /// Argument `i`, as a slice of the received bytes.
  public subscript(i: Int) -> ByteBuffer {
    bytes.getSlice(at: bytes.readerIndex + spans[2 * i], length: spans[2 * i + 1])!
  }

  /// Runs `body` with argument `i`'s bytes, in place.
  @inlinable
  public func withUnsafeBytes<R>(
    _ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R
  ) rethrows -> R {
    let offset = spans[2 * i]
    let length = spans[2 * i + 1]
    return try bytes.withUnsafeReadableBytes { raw in
      try body(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length]))
    }
  }

  /// Runs `body` with all the arguments' bytes in place and, per argument, their offset into
  /// those bytes then their length: one access to the buffer for a parser that reads many.
  @inlinable
  public func withUnsafeArguments<R>(
    _ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int>) throws -> R
  ) rethrows -> R {
    try bytes.withUnsafeReadableBytes { raw in
      try spans.withUnsafeBufferPointer { try body(raw, $0) }
    }
  }
}
