import Keyspace
import NIOCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command's arguments as they arrived, with Redis's ways of reading them.
public struct Arguments: Sendable {
  public let values: [ByteBuffer]

  public init(_ values: [ByteBuffer]) { self.values = values }

  public var count: Int { values.count }

  public func bytes(_ i: Int) -> Bytes { Array(values[i].readableBytesView) }

  public func string(_ i: Int) -> String { String(buffer: values[i]) }

  /// Whether argument `i` is `word`, ignoring ASCII case (`strcasecmp`).
  public func `is`(_ i: Int, _ word: StaticString) -> Bool {
    let view = values[i].readableBytesView
    guard view.count == word.utf8CodeUnitCount else { return false }
    return word.withUTF8Buffer { expected in
      zip(view, expected).allSatisfy { a, b in lowercase(a) == lowercase(b) }
    }
  }

  /// The argument lower-cased, for looking up command and option names.
  public func lowercased(_ i: Int) -> String {
    String(decoding: values[i].readableBytesView.map(lowercase), as: UTF8.self)
  }

  /// `getDoubleFromObject`: strtod over the whole argument, no leading space, no NaN.
  public func double(_ i: Int) -> Double? {
    let view = values[i].readableBytesView
    guard let first = view.first, !isCSpace(first), view.count < 5120 else { return nil }
    var text = Array(view)
    text.append(0)
    return text.withUnsafeBufferPointer { buffer -> Double? in
      let start = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
      var end: UnsafeMutablePointer<CChar>? = nil
      errno = 0
      let value = strtod(start, &end)
      guard let end, end - UnsafeMutablePointer(mutating: start) == view.count else { return nil }
      if errno == ERANGE && (value.isInfinite || value == 0) { return nil }
      return value.isNaN ? nil : value
    }
  }

  /// `string2ll` over the whole argument.
  public func integer(_ i: Int) -> Int? {
    let view = values[i].readableBytesView
    guard view.count <= 20 else { return nil }
    return parseRedisInteger(Array(view))
  }
}

@inline(__always)
func lowercase(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }

private func isCSpace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }

/// Redis's `string2ll`: an optional `-`, digits, no leading zeros, no overflow.
func parseRedisInteger(_ text: [UInt8]) -> Int? {
  guard let first = text.first else { return nil }
  if text.count == 1 && first == UInt8(ascii: "0") { return 0 }
  let negative = first == UInt8(ascii: "-")
  let digits = negative ? text.dropFirst() : text[...]
  guard let lead = digits.first, (49...57).contains(lead) else { return nil }
  var value = 0
  for byte in digits {
    guard (48...57).contains(byte) else { return nil }
    let d = Int(byte - 48)
    let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
    let (next, o2) = negative ? shifted.subtractingReportingOverflow(d) : shifted.addingReportingOverflow(d)
    guard !o1, !o2 else { return nil }
    value = next
  }
  return value
}
