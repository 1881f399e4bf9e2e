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
    withUnsafeMutableBytes(of: &packed) { out in
      for i in 0..<bytes.count { out[i] = lowercase(bytes[i]) }
      out[Self.maximumLength] = UInt8(bytes.count)
    }
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
