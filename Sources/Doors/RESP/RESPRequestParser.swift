import NIOCore

/// Splits a client's byte stream into commands, as Redis's `processMultibulkBuffer` and
/// `processInlineBuffer` do: multibulk frames (`*<n>\r\n` then n × `$<len>\r\n<bytes>\r\n`) and
/// inline lines of space-separated, optionally quoted words. Feed bytes with `append(_:)` as they
/// arrive, then call `next()` until it returns nil; a command may be split at any byte.
public struct RESPRequestParser: Sendable {
  public let limits: RESPLimits

  private var buffer = ByteBuffer()
  /// Arguments still to read in the current multibulk command; 0 between commands.
  private var remainingArguments = 0
  /// The declared length of the bulk string being read, once its header has been read.
  private var bulkLength: Int?
  private var arguments: [ByteBuffer] = []
  /// Where each argument of the command being read fast lies: offset, then length.
  private var spans: [Int] = []
  private var failure: RESPProtocolError?

  public init(limits: RESPLimits = RESPLimits()) {
    self.limits = limits
  }

  /// Bytes received but not yet returned as part of a command.
  public var bufferedByteCount: Int { buffer.readableBytes }

  /// Bytes of the arguments already taken out of the buffer for a command still arriving in
  /// pieces (what Redis's CLIENT LIST calls argv-mem).
  public var argumentByteCount: Int { arguments.reduce(0) { $0 + $1.readableBytes } }

  /// Room in the buffer's storage after what it holds (Redis's qbuf-free).
  public var freeCapacity: Int { buffer.writableBytes }

  public mutating func append(_ bytes: ByteBuffer) {
    guard failure == nil else { return }
    buffer.appendStream(bytes)
  }

  /// The next complete command (never without arguments), or nil until more bytes arrive. After
  /// it throws, the connection must be closed: it throws the same error again on every later
  /// call.
  public mutating func next() throws(RESPProtocolError) -> RESPCommand? {
    if let failure { throw failure }
    if remainingArguments == 0, bulkLength == nil, let command = nextWholeCommand() {
      return command
    }
    do throws(RESPProtocolError) {
      while remainingArguments == 0 {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else {
          return nil
        }
        if first != UInt8(ascii: "*") {
          guard let words = try readInlineCommand() else { return nil }
          if !words.isEmpty { return RESPCommand(words) }
          continue
        }
        guard let line = try readHeaderLine(tooBig: .tooBigMultibulkCount) else { return nil }
        guard let count = Self.headerNumber(line),
          count <= limits.maxArrayLength
        else { throw RESPProtocolError.invalidMultibulkLength }
        // `*0` and `*-1` are empty commands, which Redis skips.
        if count > 0 {
          remainingArguments = count
          // Emptied when the last command was copied out, so its storage is reused.
          arguments.reserveCapacity(min(count, 16))
        }
      }
      return try readArguments()
    } catch {
      failure = error
      buffer = ByteBuffer()
      arguments = []
      throw error
    }
  }

  /// The rest of a command that arrived in pieces, its arguments then copied into one buffer.
  private mutating func readArguments() throws(RESPProtocolError) -> RESPCommand? {
    while remainingArguments > 0 {
      if bulkLength == nil {
        guard let line = try readHeaderLine(tooBig: .tooBigBulkCount) else { return nil }
        let marker = line.getInteger(at: line.readerIndex, as: UInt8.self) ?? UInt8(ascii: "\r")
        guard marker == UInt8(ascii: "$") else {
          throw RESPProtocolError.expectedDollar(got: marker)
        }
        guard let length = Self.headerNumber(line),
          length >= 0, length <= limits.maxBulkLength
        else { throw RESPProtocolError.invalidBulkLength }
        bulkLength = length
      }
      guard let length = bulkLength, buffer.readableBytes >= length + 2 else { return nil }
      arguments.append(buffer.readSlice(length: length)!)
      // Like Redis, skip the two bytes after the payload without checking they are CRLF.
      buffer.moveReaderIndex(forwardBy: 2)
      bulkLength = nil
      remainingArguments -= 1
    }
    let command = RESPCommand(arguments)
    arguments.removeAll(keepingCapacity: true)
    return command
  }

  /// The next command when the buffer starts with all of it and it is plainly well formed,
  /// read in one pass over the bytes without slicing its header lines; else nil, and the general
  /// path below reads it (and reports what is wrong with it, if anything). Pipelined clients
  /// send whole commands, so almost every command is read here.
  private mutating func nextWholeCommand() -> RESPCommand? {
    var spans = self.spans
    self.spans = []
    spans.removeAll(keepingCapacity: true)
    let limits = self.limits
    let consumed = buffer.withUnsafeReadableBytes { raw -> Int? in
      guard raw.count >= 4, raw[0] == UInt8(ascii: "*") else { return nil }
      // Each argument takes at least six bytes (`$0` and two CRLFs): a count the bytes cannot
      // hold is left to the general path, before any room is made for it.
      guard let (count, afterCount) = Self.headerValue(raw, from: 1),
        count > 0, count <= limits.maxArrayLength, count <= (raw.count - afterCount) / 6
      else { return nil }
      // Filled in place, not appended: one check that the storage is this parser's own.
      spans.append(contentsOf: repeatElement(0, count: 2 * count))
      return spans.withUnsafeMutableBufferPointer { out -> Int? in
        var i = afterCount
        for n in 0..<count {
          guard i < raw.count, raw[i] == UInt8(ascii: "$"),
            let (length, afterLength) = Self.headerValue(raw, from: i + 1),
            length <= limits.maxBulkLength, raw.count - afterLength >= length + 2
          else { return nil }
          out[2 * n] = afterLength
          out[2 * n + 1] = length
          // Like Redis, the two bytes after the payload are skipped unchecked.
          i = afterLength + length + 2
        }
        return i
      }
    }
    // Kept for the next command: once the caller lets this one go, its storage is reused.
    defer { self.spans = spans }
    guard let consumed else { return nil }
    return RESPCommand(bytes: buffer.readSlice(length: consumed)!, spans: spans)
  }

  /// A header's number (the digits from `from` up to `\r`, as `string2ll` takes them, at most 18
  /// of them) and where the next line starts (past the `\r` and the byte after it, which is
  /// skipped unchecked as Redis does); nil when that is not all there or not a plain number.
  private static func headerValue(_ raw: UnsafeRawBufferPointer, from: Int) -> (Int, Int)? {
    var i = from
    var value = 0
    while i < raw.count {
      let byte = raw[i]
      if byte == UInt8(ascii: "\r") {
        let digits = i - from
        guard digits > 0, i + 1 < raw.count,
          raw[from] != UInt8(ascii: "0") || digits == 1
        else { return nil }
        return (value, i + 2)
      }
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), i - from < 18 else {
        return nil
      }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
      i += 1
    }
    return nil
  }

  /// A `*<n>` or `$<n>` header line without its terminator, or nil until it is complete. Like
  /// Redis, the line ends at `\r` and the byte after it is skipped unchecked.
  private mutating func readHeaderLine(
    tooBig: RESPProtocolError
  ) throws(RESPProtocolError) -> ByteBuffer? {
    guard let cr = offset(of: UInt8(ascii: "\r")) else {
      if buffer.readableBytes > limits.maxInlineLength { throw tooBig }
      return nil
    }
    guard buffer.readableBytes >= cr + 2 else { return nil }
    let line = buffer.readSlice(length: cr)!
    buffer.moveReaderIndex(forwardBy: 2)
    return line
  }

  /// The number after a header's `*` or `$`, read in place (a view would cost retains).
  private static func headerNumber(_ line: ByteBuffer) -> Int? {
    line.withUnsafeReadableBytes { parseRedisInteger($0.dropFirst()) }
  }

  /// One inline command's words (empty for a blank line), or nil until its `\n` arrives.
  private mutating func readInlineCommand() throws(RESPProtocolError) -> [ByteBuffer]? {
    guard let newline = offset(of: UInt8(ascii: "\n")) else {
      if buffer.readableBytes > limits.maxInlineLength { throw RESPProtocolError.tooBigInline }
      return nil
    }
    let line = buffer.readSlice(length: newline)!
    buffer.moveReaderIndex(forwardBy: 1)
    var bytes = line.readableBytesView[...]
    if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
    guard let words = splitInlineArguments(bytes) else {
      throw RESPProtocolError.unbalancedQuotes
    }
    return words.map { ByteBuffer(bytes: $0) }
  }

  /// Where `byte` first occurs past the reader index, looking no further than a line may be long
  /// so that a stream without line ends costs no more than the limit to scan.
  private func offset(of byte: UInt8) -> Int? {
    let window = min(buffer.readableBytes, limits.maxInlineLength + 1)
    return buffer.withUnsafeReadableBytes { raw in
      UnsafeRawBufferPointer(rebasing: raw[..<window]).firstIndex(of: byte)
    }
  }
}
