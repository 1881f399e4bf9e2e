import NIOCore

/// A reply stream that cannot be framed: a server sent something that is not RESP. After one, the
/// connection must be closed; the parser refuses further input.
public struct RESPReplyError: Error, Equatable, Sendable, CustomStringConvertible {
  public let message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { "malformed reply: \(message)" }
}

/// What `RESPReplyParser.skip()` tells about a reply it stepped over without building it.
public enum RESPReplySummary: Sendable, Equatable {
  /// Any reply but an error.
  case value
  /// An error reply (`-` or RESP3's blob error `!`), with its text.
  case error(String)
}

/// Splits a server's byte stream into replies: the client side of `RESPValue.write(to:protocol:)`.
/// Reads every RESP2 and RESP3 type, including RESP3's blob errors, attributes (skipped: the value
/// after them is returned), and streamed strings and aggregates, which Redis never sends. Feed
/// bytes with `append(_:)` as they arrive, then call `next()` (or `skip()`) until it returns nil; a
/// reply may be split at any byte.
///
/// RESP2's `$-1` reads as `.null` and `*-1` as `.nullArray`; RESP3's `_` reads as `.null`.
public struct RESPReplyParser: Sendable {
  /// Largest bulk string, blob error or verbatim string accepted.
  public var maxBulkLength: Int
  /// Most elements (or pairs, in a map) one aggregate may declare.
  public var maxAggregateLength: Int
  /// Deepest nesting of aggregates accepted.
  public var maxDepth: Int

  private var buffer = ByteBuffer()
  private var failure: RESPReplyError?
  /// Bytes buffered when the last attempt found an incomplete reply: no new attempt is made
  /// before more arrive, so a large reply trickling in is not rescanned for every call.
  private var incompleteAt = -1

  public init(
    maxBulkLength: Int = 512 * 1024 * 1024, maxAggregateLength: Int = 1 << 31 - 1,
    maxDepth: Int = 512
  ) {
    self.maxBulkLength = maxBulkLength
    self.maxAggregateLength = maxAggregateLength
    self.maxDepth = maxDepth
  }

  private var limits: Limits {
    Limits(maxBulkLength: maxBulkLength, maxAggregateLength: maxAggregateLength, maxDepth: maxDepth)
  }

  /// Bytes received but not yet returned as part of a reply.
  public var bufferedByteCount: Int { buffer.readableBytes }

  public mutating func append(_ bytes: ByteBuffer) {
    guard failure == nil else { return }
    buffer.appendStream(bytes)
  }

  /// The next complete reply, or nil until more bytes arrive. After it throws, it throws the same
  /// error on every later call.
  public mutating func next() throws(RESPReplyError) -> RESPValue? {
    if let failure { throw failure }
    guard buffer.readableBytes > 0, buffer.readableBytes != incompleteAt else { return nil }
    let limits = self.limits
    let outcome: Result<(RESPValue, Int)?, RESPReplyError> = buffer.withUnsafeReadableBytes {
      raw in
      var scanner = ReplyScanner(bytes: raw, limits: limits, build: true)
      do throws(RESPReplyError) {
        guard let value = try scanner.value(depth: 0) else { return .success(nil) }
        return .success((value, scanner.index))
      } catch {
        return .failure(error)
      }
    }
    switch outcome {
    case .success(let parsed?):
      buffer.moveReaderIndex(forwardBy: parsed.1)
      incompleteAt = -1
      return parsed.0
    case .success(nil):
      incompleteAt = buffer.readableBytes
      return nil
    case .failure(let error):
      failure = error
      buffer = ByteBuffer()
      throw error
    }
  }

  /// Steps over the next complete reply without building it (only an error's text is read), or
  /// returns nil until more bytes arrive. After it throws, it throws the same error on every
  /// later call.
  public mutating func skip() throws(RESPReplyError) -> RESPReplySummary? {
    var error: String?
    guard try skip(upTo: 1, onError: { error = $0 }) == 1 else { return nil }
    return error.map { .error($0) } ?? .value
  }

  /// Steps over up to `limit` complete replies in one pass without building them, handing each
  /// error reply's text to `onError`; returns how many it stepped over (0 until more bytes
  /// arrive): what a load generator needs, for a fraction of `next()`'s cost. After it throws, it
  /// throws the same error on every later call.
  public mutating func skip(upTo limit: Int, onError: (String) -> Void) throws(RESPReplyError)
    -> Int
  {
    if let failure { throw failure }
    guard limit > 0, buffer.readableBytes > 0, buffer.readableBytes != incompleteAt else {
      return 0
    }
    let limits = self.limits
    let outcome: Result<(count: Int, end: Int), RESPReplyError> = buffer.withUnsafeReadableBytes {
      raw in
      var scanner = ReplyScanner(bytes: raw, limits: limits, build: false)
      var count = 0
      var end = 0
      do throws(RESPReplyError) {
        while count < limit, end < raw.count {
          // Error text is wanted, and an attribute may precede an error: those are built.
          switch raw[end] {
          case UInt8(ascii: "-"), UInt8(ascii: "!"), UInt8(ascii: "|"):
            var builder = ReplyScanner(bytes: raw, limits: limits, build: true)
            builder.index = end
            guard let value = try builder.value(depth: 0) else { return .success((count, end)) }
            if case .error(let text) = value { onError(text) }
            scanner.index = builder.index
          default:
            if !scanner.skipCommon() {
              guard try scanner.skipValue(depth: 0) else { return .success((count, end)) }
            }
          }
          count += 1
          end = scanner.index
        }
        return .success((count, end))
      } catch {
        return .failure(error)
      }
    }
    switch outcome {
    case .success(let (count, end)):
      buffer.moveReaderIndex(forwardBy: end)
      incompleteAt = count < limit ? buffer.readableBytes : -1
      return count
    case .failure(let error):
      failure = error
      buffer = ByteBuffer()
      throw error
    }
  }
}

private struct Limits {
  var maxBulkLength: Int
  var maxAggregateLength: Int
  var maxDepth: Int
}

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")

/// One attempt at reading a reply from the start of `bytes`. Every method returns nil when the
/// bytes end before the reply does; `index` is then meaningless.
private struct ReplyScanner {
  let bytes: UnsafeRawBufferPointer
  let limits: Limits
  /// When false, aggregates and strings are stepped over and `.null` stands for every value.
  let build: Bool
  var index = 0

  init(bytes: UnsafeRawBufferPointer, limits: Limits, build: Bool) {
    self.bytes = bytes
    self.limits = limits
    self.build = build
  }

  /// Steps over one value without building it; false when the bytes end first. RESP2's types
  /// are framed here, the rarer RESP3 ones by `value(depth:)`.
  mutating func skipValue(depth: Int) throws(RESPReplyError) -> Bool {
    guard depth <= limits.maxDepth else {
      throw RESPReplyError("aggregates nested deeper than \(limits.maxDepth)")
    }
    guard index < bytes.count else { return false }
    switch bytes[index] {
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      index += 1
      return try line() != nil
    case UInt8(ascii: "$"):
      index += 1
      let length: Int
      if let plain = plainHeaderNumber() {
        length = try allowedLength(plain)
      } else {
        guard let line = try line() else { return false }
        if isStreamed(line) { return try streamedString() != nil }
        length = try declaredLength(line, allowingNull: true)
        if length < 0 { return true }
      }
      return try payload(length) != nil
    case UInt8(ascii: "*"):
      index += 1
      let count: Int
      if let plain = plainHeaderNumber() {
        count = try allowedCount(plain)
      } else {
        guard let line = try line() else { return false }
        if isStreamed(line) { return try streamedElements(depth: depth, pairs: false) != nil }
        count = try declaredCount(line, allowingNull: true)
      }
      for _ in 0..<max(count, 0) {
        guard try skipValue(depth: depth + 1) else { return false }
      }
      return true
    default:
      return try value(depth: depth) != nil
    }
  }

  /// Steps over one reply of the shapes a load generator meets again and again (bulk strings,
  /// simple strings and integers, alone or in one flat array) in a single pass without calls.
  /// False, with nothing consumed, for any other reply and for one not all there yet:
  /// `skipValue` then reads it, and reports what is wrong with it.
  mutating func skipCommon() -> Bool {
    let n = bytes.count
    var i = index
    guard i < n else { return false }
    var elements = 1
    if bytes[i] == UInt8(ascii: "*") {
      guard let (count, next) = headerNumber(from: i + 1), count <= limits.maxAggregateLength,
        limits.maxDepth >= 1
      else { return false }
      elements = count
      i = next
    }
    for _ in 0..<elements {
      guard i < n else { return false }
      switch bytes[i] {
      case UInt8(ascii: "$"):
        guard let (length, next) = headerNumber(from: i + 1), length <= limits.maxBulkLength,
          n - next >= length + 2, bytes[next + length] == cr, bytes[next + length + 1] == lf
        else { return false }
        i = next + length + 2
      case UInt8(ascii: "+"), UInt8(ascii: ":"):
        var end = i + 1
        while end < n && bytes[end] != cr { end += 1 }
        guard end + 1 < n, bytes[end + 1] == lf else { return false }
        if bytes[i] == UInt8(ascii: ":") && parseRedisInteger(bytes[(i + 1)..<end]) == nil {
          return false
        }
        i = end + 2
      default:
        return false
      }
    }
    index = i
    return true
  }

  /// `plainHeaderNumber`'s reading of the header number at `start`, with where the next line
  /// starts, without consuming it.
  private func headerNumber(from start: Int) -> (Int, Int)? {
    var i = start
    var value = 0
    while i < bytes.count {
      let byte = bytes[i]
      if byte == cr {
        let digits = i - start
        guard digits > 0, digits <= 18, i + 1 < bytes.count, bytes[i + 1] == lf,
          bytes[start] != UInt8(ascii: "0") || digits == 1
        else { return nil }
        return (value, i + 2)
      }
      let digit = byte &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value &* 10 &+ Int(digit)
      i += 1
    }
    return nil
  }

  mutating func value(depth: Int) throws(RESPReplyError) -> RESPValue? {
    guard depth <= limits.maxDepth else {
      throw RESPReplyError("aggregates nested deeper than \(limits.maxDepth)")
    }
    guard index < bytes.count else { return nil }
    let type = bytes[index]
    index += 1
    switch type {
    case UInt8(ascii: "+"):
      guard let line = try line() else { return nil }
      return build ? .simpleString(text(line)) : .null
    case UInt8(ascii: "-"):
      guard let line = try line() else { return nil }
      return build ? .error(text(line)) : .null
    case UInt8(ascii: ":"):
      guard let line = try line() else { return nil }
      guard let value = parseRedisInteger(slice(line)) else {
        throw RESPReplyError("invalid integer '\(text(line))'")
      }
      return .integer(value)
    case UInt8(ascii: "$"):
      guard let line = try line() else { return nil }
      if isStreamed(line) { return try streamedString() }
      let length = try declaredLength(line, allowingNull: true)
      if length < 0 { return .null }
      guard let payload = try payload(length) else { return nil }
      return build ? .bulkString(ByteBuffer(bytes: slice(payload))) : .null
    case UInt8(ascii: "!"):
      guard let line = try line() else { return nil }
      guard let payload = try payload(try declaredLength(line, allowingNull: false)) else {
        return nil
      }
      return build ? .error(text(payload)) : .null
    case UInt8(ascii: "="):
      guard let line = try line() else { return nil }
      let length = try declaredLength(line, allowingNull: false)
      guard let payload = try payload(length) else { return nil }
      guard length >= 4, bytes[payload.lowerBound + 3] == UInt8(ascii: ":") else {
        throw RESPReplyError("verbatim string without a three-character format")
      }
      guard build else { return .null }
      return .verbatimString(
        format: text(payload.lowerBound..<payload.lowerBound + 3),
        text: text(payload.lowerBound + 4..<payload.upperBound))
    case UInt8(ascii: "_"):
      guard let line = try line() else { return nil }
      guard line.isEmpty else { throw RESPReplyError("null with a payload") }
      return .null
    case UInt8(ascii: "#"):
      guard let line = try line() else { return nil }
      switch Array(slice(line)) {
      case [UInt8(ascii: "t")]: return .boolean(true)
      case [UInt8(ascii: "f")]: return .boolean(false)
      default: throw RESPReplyError("invalid boolean '\(text(line))'")
      }
    case UInt8(ascii: ","):
      guard let line = try line() else { return nil }
      guard let value = parseDouble(text(line)) else {
        throw RESPReplyError("invalid double '\(text(line))'")
      }
      return .double(value)
    case UInt8(ascii: "("):
      guard let line = try line() else { return nil }
      let digits = slice(line)
      let body = digits.first == UInt8(ascii: "-") ? digits.dropFirst() : digits[...]
      guard !body.isEmpty, body.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
      else { throw RESPReplyError("invalid big number '\(text(line))'") }
      return build ? .bigNumber(text(line)) : .null
    case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"):
      guard let line = try line() else { return nil }
      let items: [RESPValue]?
      if isStreamed(line) {
        guard let streamed = try streamedElements(depth: depth, pairs: false) else { return nil }
        items = streamed
      } else {
        let count = try declaredCount(line, allowingNull: type == UInt8(ascii: "*"))
        if count < 0 { return .nullArray }
        guard let read = try elements(count, depth: depth) else { return nil }
        items = read
      }
      guard build, let items else { return .null }
      switch type {
      case UInt8(ascii: "~"): return .set(items)
      case UInt8(ascii: ">"): return .push(items)
      default: return .array(items)
      }
    case UInt8(ascii: "%"), UInt8(ascii: "|"):
      guard let line = try line() else { return nil }
      let flat: [RESPValue]?
      if isStreamed(line) {
        guard let streamed = try streamedElements(depth: depth, pairs: true) else { return nil }
        flat = streamed
      } else {
        let count = try declaredCount(line, allowingNull: false)
        guard count <= limits.maxAggregateLength / 2 else {
          throw RESPReplyError("aggregate of \(count) pairs is too long")
        }
        guard let read = try elements(count * 2, depth: depth) else { return nil }
        flat = read
      }
      // An attribute describes the reply that follows it, which is what is returned.
      if type == UInt8(ascii: "|") { return try value(depth: depth) }
      guard build, let flat else { return .null }
      return .map(
        stride(from: 0, to: flat.count, by: 2).map { (key: flat[$0], value: flat[$0 + 1]) })
    default:
      throw RESPReplyError("unknown type byte \(describe(type))")
    }
  }

  /// The `count` elements of an aggregate (nil when not building).
  private mutating func elements(_ count: Int, depth: Int) throws(RESPReplyError)
    -> [RESPValue]??
  {
    var elements: [RESPValue] = []
    if build { elements.reserveCapacity(min(count, 1024)) }
    for _ in 0..<count {
      guard let element = try value(depth: depth + 1) else { return nil }
      if build { elements.append(element) }
    }
    return .some(build ? elements : nil)
  }

  /// RESP3's streamed aggregate body: values until `.\r\n`; for a map, an even number of them.
  private mutating func streamedElements(depth: Int, pairs: Bool) throws(RESPReplyError)
    -> [RESPValue]??
  {
    var elements: [RESPValue] = []
    var count = 0
    while true {
      guard index < bytes.count else { return nil }
      if bytes[index] == UInt8(ascii: ".") {
        index += 1
        guard let line = try line() else { return nil }
        guard line.isEmpty else { throw RESPReplyError("streamed aggregate end with a payload") }
        guard !pairs || count % 2 == 0 else { throw RESPReplyError("streamed map of odd length") }
        return .some(build ? elements : nil)
      }
      guard let element = try value(depth: depth + 1) else { return nil }
      count += 1
      guard count <= limits.maxAggregateLength else {
        throw RESPReplyError("streamed aggregate is too long")
      }
      if build { elements.append(element) }
    }
  }

  /// RESP3's streamed string body: `;<length>\r\n<bytes>\r\n` chunks until `;0\r\n`.
  private mutating func streamedString() throws(RESPReplyError) -> RESPValue? {
    var joined: [UInt8] = []
    while true {
      guard index < bytes.count else { return nil }
      guard bytes[index] == UInt8(ascii: ";") else {
        throw RESPReplyError("expected a streamed string chunk, got \(describe(bytes[index]))")
      }
      index += 1
      guard let line = try line() else { return nil }
      let length = try declaredLength(line, allowingNull: false)
      if length == 0 { return build ? .bulkString(ByteBuffer(bytes: joined)) : .null }
      guard let payload = try payload(length) else { return nil }
      if build { joined += slice(payload) }
      guard joined.count <= limits.maxBulkLength else {
        throw RESPReplyError("streamed string is too long")
      }
    }
  }

  /// A header's number when it is plain (1 to 18 digits, no sign, no leading zero) and its CRLF
  /// is there, both consumed: the common case, read in one pass. Nil, with nothing consumed, for
  /// anything else, which the general path then reads (or rejects).
  @inline(__always)
  private mutating func plainHeaderNumber() -> Int? {
    guard let (value, next) = headerNumber(from: index) else { return nil }
    index = next
    return value
  }

  /// The rest of a line up to its CRLF, which is consumed; nil until the CRLF is there.
  private mutating func line() throws(RESPReplyError) -> Range<Int>? {
    let start = index
    var i = start
    let end = bytes.count
    while i < end, bytes[i] != cr { i += 1 }
    guard i + 1 < end else {
      if end - start > 64 * 1024 { throw RESPReplyError("line longer than 64 KiB") }
      return nil
    }
    guard bytes[i + 1] == lf else { throw RESPReplyError("CR not followed by LF") }
    index = i + 2
    return start..<i
  }

  /// `length` bytes then CRLF, consumed; nil until all are there.
  private mutating func payload(_ length: Int) throws(RESPReplyError) -> Range<Int>? {
    guard bytes.count - index >= length + 2 else { return nil }
    let range = index..<index + length
    guard bytes[range.upperBound] == cr, bytes[range.upperBound + 1] == lf else {
      throw RESPReplyError("string payload not followed by CRLF")
    }
    index += length + 2
    return range
  }

  private func declaredLength(_ line: Range<Int>, allowingNull: Bool) throws(RESPReplyError)
    -> Int
  {
    guard let length = parseRedisInteger(slice(line)),
      length >= 0 || (allowingNull && length == -1)
    else { throw RESPReplyError("invalid length '\(text(line))'") }
    return try allowedLength(length)
  }

  private func declaredCount(_ line: Range<Int>, allowingNull: Bool) throws(RESPReplyError) -> Int {
    guard let count = parseRedisInteger(slice(line)), count >= 0 || (allowingNull && count == -1)
    else { throw RESPReplyError("invalid aggregate length '\(text(line))'") }
    return try allowedCount(count)
  }

  /// A string's declared length, if within the limit.
  private func allowedLength(_ length: Int) throws(RESPReplyError) -> Int {
    guard length <= limits.maxBulkLength else {
      throw RESPReplyError("string of \(length) bytes is too long")
    }
    return length
  }

  /// An aggregate's declared count, if within the limit.
  private func allowedCount(_ count: Int) throws(RESPReplyError) -> Int {
    guard count <= limits.maxAggregateLength else {
      throw RESPReplyError("aggregate of \(count) elements is too long")
    }
    return count
  }

  private func slice(_ range: Range<Int>) -> Slice<UnsafeRawBufferPointer> { bytes[range] }

  /// Whether a header line is RESP3's `?`: a streamed string or aggregate follows.
  private func isStreamed(_ line: Range<Int>) -> Bool {
    line.count == 1 && bytes[line.lowerBound] == UInt8(ascii: "?")
  }

  private func text(_ range: Range<Int>) -> String {
    String(decoding: bytes[range], as: UTF8.self)
  }

  private func describe(_ byte: UInt8) -> String {
    byte >= 0x20 && byte < 0x7F
      ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
  }
}

/// A RESP3 double: what `%.17g` prints, and `inf`, `-inf`, `nan` (also `-nan`, as glibc prints).
private func parseDouble(_ text: String) -> Double? {
  switch text {
  case "inf", "+inf": return .infinity
  case "-inf": return -.infinity
  case "nan", "-nan": return .nan
  default:
    // Swift also reads `infinity` and hexadecimal floats, which are not RESP.
    guard let first = text.utf8.first,
      first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
        || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")),
      !text.contains(where: { $0 == "x" || $0 == "X" || $0 == "n" || $0 == "N" })
    else { return nil }
    return Double(text)
  }
}
