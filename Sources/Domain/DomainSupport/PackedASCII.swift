/// Short server-made texts (share codes, slugs, usernames) held as integers: 8 bytes in place,
/// where a `String` took 16.
public enum PackedASCII {
  /// Up to `bytes` ASCII characters (no NUL) in an integer, the first in the lowest byte.
  public static func pack(_ text: String, bytes: Int) -> UInt64? {
    let utf8 = text.utf8
    guard utf8.count <= bytes, utf8.allSatisfy({ $0 != 0 && $0 < 0x80 }) else { return nil }
    return utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  public static func text(_ packed: UInt64) -> String {
    String(unsafeUninitializedCapacity: 8) { buffer in
      var count = 0
      var rest = packed
      while rest != 0 {
        buffer[count] = UInt8(truncatingIfNeeded: rest)
        rest >>= 8
        count += 1
      }
      return count
    }
  }
}
