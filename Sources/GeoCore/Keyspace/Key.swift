/// A key's bytes as the databases hold them: up to 24 bytes inline, so that looking a short key
/// up allocates nothing, and hashed in one pass rather than byte by byte.
struct Key: Hashable, Sendable {
  private var inline: (UInt64, UInt64, UInt64) = (0, 0, 0)
  private let count: Int
  /// The bytes of a key longer than `inline` holds.
  private var heap: Bytes?

  init(_ bytes: UnsafeRawBufferPointer) {
    count = bytes.count
    if count <= MemoryLayout.size(ofValue: inline) {
      Swift.withUnsafeMutableBytes(of: &inline) { $0.copyMemory(from: bytes) }
    } else {
      heap = Bytes(bytes)
    }
  }

  init(_ bytes: Bytes) {
    self = bytes.withUnsafeBytes { Key($0) }
  }

  var bytes: Bytes { withUnsafeBytes { Bytes($0) } }

  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    if let heap { return try heap.withUnsafeBytes(body) }
    return try Swift.withUnsafeBytes(of: inline) {
      try body(UnsafeRawBufferPointer(rebasing: $0[..<count]))
    }
  }

  static func == (a: Key, b: Key) -> Bool {
    // A key is inline exactly when it is short, and unused inline bytes are zero.
    a.count == b.count && a.inline == b.inline && a.heap == b.heap
  }

  func hash(into hasher: inout Hasher) {
    withUnsafeBytes { hasher.combine(bytes: $0) }
  }
}
