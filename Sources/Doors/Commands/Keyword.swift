/// A command or option name as it arrived, lower-cased and packed into three words with its
/// length: recognising one costs three integer comparisons (or one cheap hash), not a String
/// built per argument. Arguments longer than any name (23 bytes) all become `tooLong`.
struct Keyword: Hashable, Sendable {
  private var packed: (UInt64, UInt64, UInt64) = (0, 0, 0)

  static let maximumLength = 23

  init(lowercasing bytes: UnsafeRawBufferPointer) {
    guard bytes.count <= Self.maximumLength else {
      packed.2 = .max
      return
    }
    packed = (
      Self.lowercased(Self.word(bytes, 0)), Self.lowercased(Self.word(bytes, 8)),
      Self.lowercased(Self.word(bytes, 16)) | UInt64(bytes.count) << 56
    )
  }

  /// The eight bytes from `start` as one little-endian word, zeros past the end: whole words
  /// load at once, and a name's last few bytes in at most three loads.
  @inline(__always)
  private static func word(_ bytes: UnsafeRawBufferPointer, _ start: Int) -> UInt64 {
    if bytes.count >= start + 8 {
      return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
    }
    // The last one to seven bytes: four, two, then one at a time.
    let n = bytes.count - start
    guard n > 0, let base = bytes.baseAddress else { return 0 }
    let tail = base + start
    var word: UInt64 = 0
    var at = 0
    if n & 4 != 0 {
      word = UInt64(UInt32(littleEndian: tail.loadUnaligned(as: UInt32.self)))
      at = 4
    }
    if n & 2 != 0 {
      let two = UInt16(littleEndian: tail.loadUnaligned(fromByteOffset: at, as: UInt16.self))
      word |= UInt64(two) << UInt64(8 * at)
      at += 2
    }
    if n & 1 != 0 {
      word |= UInt64(tail.load(fromByteOffset: at, as: UInt8.self)) << UInt64(8 * at)
    }
    return word
  }

  /// Eight bytes with their ASCII capitals lower-cased at once, the rest unchanged: a byte's
  /// high bit is set by adding 0x3F to its low seven bits when they are at least "A", and by
  /// adding 0x25 when they are past "Z" (no carry crosses a byte); capitals have the first alone.
  @inline(__always)
  private static func lowercased(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let low = x & (0x7F &* ones)
    let capital = ((low &+ 0x3F &* ones) ^ (low &+ 0x25 &* ones)) & ~x & (0x80 &* ones)
    return x | capital >> 2
  }

  /// A name known in advance.
  init(_ name: String) {
    precondition(name.utf8.count <= Self.maximumLength, "name too long for a Keyword: \(name)")
    self = Array(name.utf8).withUnsafeBytes { Keyword(lowercasing: $0) }
  }

  static func == (a: Keyword, b: Keyword) -> Bool {
    a.packed.0 == b.packed.0 && a.packed.1 == b.packed.1 && a.packed.2 == b.packed.2
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(packed.0)
    hasher.combine(packed.1)
    hasher.combine(packed.2)
  }
}
