/// Exact lookup of folded names: every (key, place) pair as one UInt64, the key's 64-bit FNV-1a
/// hash in the high bits and the place in the low `placeBits`, sorted. A lookup is a binary
/// search; hash collisions are weeded out by comparing the key with the place's own keys.
/// Built at load (a few tens of milliseconds) rather than stored, which keeps the file small.
struct KeyIndex: Sendable {
  static let placeBits: UInt64 = 20
  static let maximumPlaces = 1 << Int(placeBits)
  private let entries: [UInt64]

  init(_ data: GazetteerData) {
    var entries = [UInt64]()
    entries.reserveCapacity(data.count * 5)
    data.text.withUnsafeBufferPointer { text in
      for place in 0..<data.count {
        var start = Int(data.keysStart[place])
        let end = data.rowRange(place).upperBound
        var i = start
        while i <= end {
          if i == end || text[i] == UInt8(ascii: "|") {
            let hash = Self.hash(UnsafeBufferPointer(rebasing: text[start..<i]))
            entries.append(Self.entry(hash: hash, place: place))
            start = i + 1
          }
          i += 1
        }
      }
    }
    entries.sort()
    self.entries = entries
  }

  var count: Int { entries.count }

  /// Places that may have `key` among their keys (a superset: check with `keyPosition`).
  func candidates(_ key: [UInt8]) -> [Int] {
    let prefix = key.withUnsafeBufferPointer { Self.hash($0) } >> Self.placeBits
    var low = 0
    var high = entries.count
    let first = prefix << Self.placeBits
    while low < high {
      let mid = (low + high) / 2
      if entries[mid] < first { low = mid + 1 } else { high = mid }
    }
    var out = [Int]()
    while low < entries.count, entries[low] >> Self.placeBits == prefix {
      out.append(Int(entries[low] & ((1 << Self.placeBits) - 1)))
      low += 1
    }
    return out
  }

  private static func entry(hash: UInt64, place: Int) -> UInt64 {
    (hash >> placeBits) << placeBits | UInt64(place)
  }

  private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      h ^= UInt64(byte)
      h = h &* 0x100_0000_01b3
    }
    return h
  }
}
