import CZlib

/// How the keyspace journal writes changes: a file of records, each
/// `[payload length: UInt32][CRC-32 of the payload: UInt32][payload]`, little-endian, the payload
/// one group of commands' changes in order (`ChangeCoding`). A record cut short or whose CRC
/// fails ends the journal: it was being written when the process died, so none of its commands
/// was acknowledged.
enum JournalFormat {
  static let headerBytes = 8

  /// Frames `payload` (appended changes) as one record.
  static func record(_ payload: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(headerBytes + payload.count)
    appendUInt32(UInt32(payload.count), &out)
    appendUInt32(crc(payload[...]), &out)
    out += payload
    return out
  }

  /// The whole records at the start of `bytes`, each as its payload, and how many bytes they
  /// take; what follows the last whole record (a torn write) is left out.
  static func records(_ bytes: [UInt8]) -> (payloads: [ArraySlice<UInt8>], length: Int) {
    var payloads: [ArraySlice<UInt8>] = []
    var at = 0
    while bytes.count - at >= headerBytes {
      let length = Int(readUInt32(bytes, at))
      let checksum = readUInt32(bytes, at + 4)
      let start = at + headerBytes
      guard length <= bytes.count - start else { break }
      let payload = bytes[start..<start + length]
      guard crc(payload) == checksum else { break }
      payloads.append(payload)
      at = start + length
    }
    return (payloads, at)
  }

  // MARK: Bytes

  private static func appendUInt32(_ value: UInt32, _ out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out += $0 }
  }

  private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
  }

  private static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
      UInt32(crc32(0, buffer.baseAddress, uInt(buffer.count)))
    }
  }
}
