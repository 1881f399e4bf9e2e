/// Changes as bytes, and back: how a store that logs changes (the keyspace journal, the
/// PostgreSQL change feed) writes them. Each change is a tag byte, then its fields: integers
/// little-endian, byte strings as a UInt32 length and the bytes, doubles by their bits.
public enum ChangeCoding {
  /// Appends one change.
  public static func append(_ change: Change, to out: inout [UInt8]) {
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

  /// The changes `append` wrote into `bytes`, in order; nil if they do not read as changes.
  public static func changes(_ bytes: ArraySlice<UInt8>) -> [Change]? {
    var reader = Reader(bytes: bytes)
    var changes: [Change] = []
    while !reader.atEnd {
      guard let change = reader.change() else { return nil }
      changes.append(change)
    }
    return changes
  }

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
