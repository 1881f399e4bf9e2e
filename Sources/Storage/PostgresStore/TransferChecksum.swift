/// A 64-bit FNV-1a hash, for the order-free checksums `cardatlas migrate` compares on both sides
/// (each record hashed alone, the hashes summed).
public struct TransferChecksum: Sendable {
  public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  public init() {}

  /// The bytes, after their count (so that two fields never run into each other).
  public mutating func add(_ bytes: [UInt8]) {
    add(UInt64(bytes.count))
    for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
  }

  public mutating func add(_ text: String) { add(Array(text.utf8)) }
  public mutating func add(_ number: Int) { add(UInt64(bitPattern: Int64(number))) }
  public mutating func add(_ number: Int64) { add(UInt64(bitPattern: number)) }

  public mutating func add(_ number: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) {
      value = (value ^ (number >> UInt64(shift) & 0xff)) &* 0x100_0000_01b3
    }
  }
}

/// The order-free sum of records' checksums: each record hashed alone (`add`), the hashes
/// added with wrapping.
public struct TransferChecksumSum: Sendable {
  public private(set) var value: UInt64 = 0

  public init() {}

  public mutating func add(_ fields: (inout TransferChecksum) -> Void) {
    var hash = TransferChecksum()
    fields(&hash)
    value &+= hash.value
  }
}
