import Keyspace
import NIOCore
import RESP

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command's arguments as they arrived, with Redis's ways of reading them.
public struct Arguments: ArgumentReading, Sendable {
  let command: RESPCommand

  public init(_ command: RESPCommand) { self.command = command }

  public init(_ values: [ByteBuffer]) { command = RESPCommand(values) }

  public var count: Int { command.count }

  /// Argument `i` as a buffer sharing the received bytes, for replies that echo it.
  public func buffer(_ i: Int) -> ByteBuffer { command[i] }

  /// Runs `body` with argument `i`'s bytes in place.
  public func withBytes<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try command.withUnsafeBytes(i, body)
  }

  /// Runs `body` with every argument readable in place: a parser that reads many arguments
  /// reaches the received bytes once instead of once per argument.
  public func withView<R>(_ body: (ArgumentView) throws -> R) rethrows -> R {
    try command.withUnsafeArguments { bytes, spans in
      try body(ArgumentView(bytes: bytes, spans: spans))
    }
  }
}

/// The arguments in place, valid only inside `Arguments.withView`.
public struct ArgumentView: ArgumentReading {
  let bytes: UnsafeRawBufferPointer
  /// Per argument: its offset into `bytes`, then its length.
  let spans: UnsafeBufferPointer<Int>

  public var count: Int { spans.count / 2 }

  public func withBytes<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows
    -> R
  {
    let offset = spans[2 * i]
    return try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + spans[2 * i + 1]]))
  }
}

/// Redis's ways of reading arguments, for the arguments however they are held.
public protocol ArgumentReading {
  var count: Int { get }

  /// Runs `body` with argument `i`'s bytes in place.
  func withBytes<R>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension ArgumentReading {
  public func bytes(_ i: Int) -> Bytes { withBytes(i) { Array($0) } }

  public func string(_ i: Int) -> String {
    withBytes(i) { String(decoding: $0, as: UTF8.self) }
  }

  /// Whether argument `i` is `word`, ignoring ASCII case (`strcasecmp`).
  public func `is`(_ i: Int, _ word: StaticString) -> Bool {
    withBytes(i) { bytes in
      guard bytes.count == word.utf8CodeUnitCount else { return false }
      let expected = word.utf8Start
      for j in 0..<bytes.count where lowercase(bytes[j]) != lowercase(expected[j]) {
        return false
      }
      return true
    }
  }

  /// The argument as a keyword, for matching command and option names.
  func keyword(_ i: Int) -> Keyword {
    withBytes(i) { Keyword(lowercasing: $0) }
  }

  /// The argument lower-cased, for names looked up by text (INFO sections, CONFIG parameters).
  public func lowercased(_ i: Int) -> String {
    withBytes(i) { bytes in
      String(unsafeUninitializedCapacity: bytes.count) { out in
        for j in 0..<bytes.count { out[j] = lowercase(bytes[j]) }
        return bytes.count
      }
    }
  }

  /// `getDoubleFromObject`: strtod over the whole argument, no leading space, no NaN.
  public func double(_ i: Int) -> Double? {
    withBytes(i) { view -> Double? in
      if let exact = plainDecimal(view) { return exact }
      guard let first = view.first, !isCSpace(first), view.count < 5120 else { return nil }
      return withUnsafeTemporaryAllocation(of: CChar.self, capacity: view.count + 1) { text in
        for j in 0..<view.count { text[j] = CChar(bitPattern: view[j]) }
        text[view.count] = 0
        var end: UnsafeMutablePointer<CChar>? = nil
        errno = 0
        let value = strtod(text.baseAddress!, &end)
        guard let end, end - text.baseAddress! == view.count else { return nil }
        if errno == ERANGE && (value.isInfinite || value == 0) { return nil }
        return value.isNaN ? nil : value
      }
    }
  }

  /// `string2ll` over the whole argument.
  public func integer(_ i: Int) -> Int? {
    withBytes(i) { parseRedisInteger($0) }
  }

  // Every integer a client sends is read by one of the three below, each bounding what it
  // returns so that no arithmetic on it can overflow.

  /// A count, offset or index (COUNT n, LIMIT offset count, ZRANGE's start and stop): `string2ll`,
  /// saturated at ±2^62. No keyspace or set holds that many, so the value means what Redis's
  /// does, and what is done with it (a count plus one, a start plus a count, a length plus a
  /// negative index) stays in range.
  /// A distance unit's metres (m, km, ft, mi, any case), as the GEO commands read it.
  public func unit(_ i: Int) -> Double? { GeoCommands.unit(self, i) }

  public func saturatingInteger(_ i: Int) -> Int? {
    integer(i).map { max(-saturationBound, min($0, saturationBound)) }
  }

  /// An integer Redis reads into a bounded type (`getRangeLongFromObjectOrReply`: a C `int`
  /// for a database index), with Redis's errors when it is not an integer or out of `range`.
  func integer(_ i: Int, in range: ClosedRange<Int>) -> Result<Int, RedisReplyError> {
    guard let value = integer(i) else { return .failure(RedisReplyError(RedisError.notInteger)) }
    guard range.contains(value) else {
      return .failure(
        RedisReplyError(
          "ERR value is out of range, value must between \(range.lowerBound) and "
            + "\(range.upperBound)"))
    }
    return .success(value)
  }

  /// A SCAN cursor as `parseScanCursorOrReply` reads it: `strtoul` over the C string (up to a
  /// NUL byte), a sign then digits, `-n` wrapping to 2^64 - n and nothing at all to 0; nil for
  /// a leading space, anything after the digits, or more than 2^64 - 1 (ERANGE).
  public func cursor(_ i: Int) -> UInt64? {
    withBytes(i) { bytes -> UInt64? in
      let text = bytes.prefix { $0 != 0 }
      guard let first = text.first else { return 0 }
      if isCSpace(first) { return nil }
      let negative = first == UInt8(ascii: "-")
      let digits = negative || first == UInt8(ascii: "+") ? text.dropFirst() : text
      guard !digits.isEmpty else { return nil }
      var value: UInt64 = 0
      for byte in digits {
        let digit = byte &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (shifted, over) = value.multipliedReportingOverflow(by: 10)
        let (sum, carry) = shifted.addingReportingOverflow(UInt64(digit))
        if over || carry { return nil }
        value = sum
      }
      return negative ? 0 &- value : value
    }
  }
}

/// Where `saturatingInteger` stops: 2^62, so that twice it is still an `Int`.
let saturationBound = 1 << 62

/// A plain decimal (`-12.345`: at most 15 digits, no exponent) read exactly as strtod reads it,
/// or nil for anything else. The digits make an integer below 2^53 and the power of ten is
/// exact, so their one correctly rounded division is strtod's correctly rounded result
/// (Clinger's fast path); coordinates and radii almost always take it.
func plainDecimal(_ text: UnsafeRawBufferPointer) -> Double? {
  let negative = text.first == UInt8(ascii: "-")
  let start = negative ? 1 : 0
  var mantissa: Int64 = 0
  var point = -1
  // One test per byte on the way: a digit, else the first point, else not plain. Past 15
  // digits the integer may wrap, but such text is declined below before it is used.
  for i in start..<text.count {
    let digit = text[i] &- UInt8(ascii: "0")
    if digit < 10 {
      mantissa = mantissa &* 10 &+ Int64(digit)
    } else if text[i] == UInt8(ascii: ".") && point < 0 {
      point = i
    } else {
      return nil
    }
  }
  let digits = text.count - start - (point < 0 ? 0 : 1)
  // Past 15 digits strtod decides.
  guard digits > 0, digits <= 15 else { return nil }
  let value = Double(mantissa) / exactPowerOfTen(point < 0 ? 0 : text.count - point - 1)
  return negative ? -value : value
}

/// 10ⁿ for n in 0...15, each exact in a Double (a switch, so no global to initialise).
@inline(__always)
private func exactPowerOfTen(_ n: Int) -> Double {
  switch n {
  case 0: 1
  case 1: 1e1
  case 2: 1e2
  case 3: 1e3
  case 4: 1e4
  case 5: 1e5
  case 6: 1e6
  case 7: 1e7
  case 8: 1e8
  case 9: 1e9
  case 10: 1e10
  case 11: 1e11
  case 12: 1e12
  case 13: 1e13
  case 14: 1e14
  default: 1e15
  }
}

@inline(__always)
func lowercase(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }

private func isCSpace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }
