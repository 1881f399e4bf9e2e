import CZlib
import Keyspace

/// How the keyspace journal writes changes: a file of records, each
/// `[payload length: UInt32][CRC-32 of the payload: UInt32][payload]`, little-endian, the payload
/// one group of commands' changes in order. A record cut short or whose CRC fails ends the
/// journal: it was being written when the process died, so none of its commands was
/// acknowledged.
enum JournalFormat {
  static let headerBytes = 8

  /// Appends one change.
  static func append(_ change: Change, to out: inout [UInt8]) {
    switch change {
    case .geoUpsert(let db, let key, let member, let score, let longitude, let latitude):
      out.append(1)
      append(db, key, &out)
      appendBytes(member, &out)
      for value in [score, longitude, latitude] { appendUInt64(value.bitPattern, &out) }
    case .geoRemove(let db, let key, let member):
      out.append(2)
      append(db, key, &out)
      appendBytes(member, &out)
    case .setString(let db, let key, let value):
      out.append(3)
      append(db, key, &out)
      appendBytes(value, &out)
    case .deleteKey(let db, let key):
      out.append(4)
      append(db, key, &out)
    case .flushDatabase(let db):
      out.append(5)
      appendUInt32(UInt32(db), &out)
    case .flushAll:
      out.append(6)
    }
  }

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

  /// The changes of one record's payload, in order; nil if it does not read as changes (it
  /// passed its CRC, so only a journal of another version could).
  static func changes(_ payload: ArraySlice<UInt8>) -> [Change]? {
    var reader = Reader(bytes: payload)
    var changes: [Change] = []
    while !reader.atEnd {
      guard let change = reader.change() else { return nil }
      changes.append(change)
    }
    return changes
  }

  // MARK: Bytes

  private static func append(_ db: Int, _ key: Bytes, _ out: inout [UInt8]) {
    appendUInt32(UInt32(db), &out)
    appendBytes(key, &out)
  }

  private static func appendBytes(_ bytes: Bytes, _ out: inout [UInt8]) {
    appendUInt32(UInt32(bytes.count), &out)
    out += bytes
  }

  private static func appendUInt32(_ value: UInt32, _ out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out += $0 }
  }

  private static func appendUInt64(_ value: UInt64, _ out: inout [UInt8]) {
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

  /// Reads changes as `append` wrote them.
  private struct Reader {
    let bytes: ArraySlice<UInt8>
    var at: Int

    init(bytes: ArraySlice<UInt8>) {
      self.bytes = bytes
      at = bytes.startIndex
    }

    var atEnd: Bool { at >= bytes.endIndex }

    mutating func change() -> Change? {
      guard let tag = byte() else { return nil }
      switch tag {
      case 1:
        guard let db = uint32(), let key = blob(), let member = blob(), let score = uint64(),
          let longitude = uint64(), let latitude = uint64()
        else { return nil }
        return .geoUpsert(
          db: Int(db), key: key, member: member, score: Double(bitPattern: score),
          longitude: Double(bitPattern: longitude), latitude: Double(bitPattern: latitude))
      case 2:
        guard let db = uint32(), let key = blob(), let member = blob() else { return nil }
        return .geoRemove(db: Int(db), key: key, member: member)
      case 3:
        guard let db = uint32(), let key = blob(), let value = blob() else { return nil }
        return .setString(db: Int(db), key: key, value: value)
      case 4:
        guard let db = uint32(), let key = blob() else { return nil }
        return .deleteKey(db: Int(db), key: key)
      case 5:
        return uint32().map { .flushDatabase(db: Int($0)) }
      case 6:
        return .flushAll
      default:
        return nil
      }
    }

    private mutating func byte() -> UInt8? {
      guard at < bytes.endIndex else { return nil }
      defer { at += 1 }
      return bytes[at]
    }

    private mutating func uint32() -> UInt32? {
      guard bytes.endIndex - at >= 4 else { return nil }
      defer { at += 4 }
      return (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }

    private mutating func uint64() -> UInt64? {
      guard bytes.endIndex - at >= 8 else { return nil }
      defer { at += 8 }
      return (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }

    private mutating func blob() -> Bytes? {
      guard let count = uint32().map(Int.init), bytes.endIndex - at >= count else { return nil }
      defer { at += count }
      return Bytes(bytes[at..<at + count])
    }
  }
}
