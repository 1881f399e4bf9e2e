import Keyspace
import NIOCore
import RESP

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
    values[i].withUnsafeReadableBytes { bytes in
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
    values[i].withUnsafeReadableBytes { Keyword(lowercasing: $0) }
  }

  /// The argument lower-cased, for names looked up by text (INFO sections, CONFIG parameters).
  public func lowercased(_ i: Int) -> String {
    values[i].withUnsafeReadableBytes { bytes in
      String(unsafeUninitializedCapacity: bytes.count) { out in
        for j in 0..<bytes.count { out[j] = lowercase(bytes[j]) }
        return bytes.count
      }
    }
  }

  /// `getDoubleFromObject`: strtod over the whole argument, no leading space, no NaN.
  public func double(_ i: Int) -> Double? {
    values[i].withUnsafeReadableBytes { view -> Double? in
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
    values[i].withUnsafeReadableBytes { parseRedisInteger($0) }
  }
}

@inline(__always)
func lowercase(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }

private func isCSpace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }
