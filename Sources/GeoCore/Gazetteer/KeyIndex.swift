/// Exact lookup of folded names: every (key, place) pair as one UInt64, the key's hash in the
/// high bits and the place in the low `placeBits`, sorted by hash. A lookup is a binary search;
/// hash collisions are weeded out by comparing the key with the place's own keys. Built at load
/// (a radix sort, tens of milliseconds) rather than stored, which keeps the data file small.
struct KeyIndex: Sendable {
  static let placeBits = 20
  static let maximumPlaces = 1 << placeBits
  private static let placeMask: UInt64 = (1 << UInt64(placeBits)) - 1
  private let entries: [UInt64]

  init(_ data: GazetteerData) {
    var entries = [UInt64]()
    entries.reserveCapacity(data.count * 5)
    data.text.withUnsafeBufferPointer { text in
      for place in 0..<data.count {
        var start = Int(data.keysStart[place])
        let end = data.rowRange(place).upperBound
        for i in start...end where i == end || text[i] == UInt8(ascii: "|") {
          let hash = Self.hash(UnsafeBufferPointer(rebasing: text[start..<i]))
          entries.append(hash & ~Self.placeMask | UInt64(place))
          start = i + 1
        }
      }
    }
    self.entries = Self.radixSortedByHash(entries)
  }

  var count: Int { entries.count }

  /// Places that may have `key` among their keys (a superset: check with `keyPosition`).
  func candidates(_ key: [UInt8]) -> [Int] {
    let tag = Self.hash(key) & ~Self.placeMask
    var low = 0
    var high = entries.count
    while low < high {
      let mid = (low + high) / 2
      if entries[mid] < tag { low = mid + 1 } else { high = mid }
    }
    var out = [Int]()
    while low < entries.count, entries[low] & ~Self.placeMask == tag {
      out.append(Int(entries[low] & Self.placeMask))
      low += 1
    }
    return out
  }

  /// A stable LSD radix sort on the hash bits (the 44 above `placeBits`), in three passes.
  private static func radixSortedByHash(_ input: [UInt64]) -> [UInt64] {
    var source = input
    var target = [UInt64](repeating: 0, count: input.count)
    var shift = UInt64(placeBits)
    while shift < 64 {
      let bits = min(15, 64 - shift)
      let mask = (UInt64(1) << bits) - 1
      var offsets = [Int](repeating: 0, count: (1 << Int(bits)) + 1)
      for value in source { offsets[Int((value >> shift) & mask) + 1] += 1 }
      for i in 1..<offsets.count { offsets[i] += offsets[i - 1] }
      source.withUnsafeBufferPointer { source in
        target.withUnsafeMutableBufferPointer { target in
          offsets.withUnsafeMutableBufferPointer { offsets in
            for value in source {
              let digit = Int((value >> shift) & mask)
              target[offsets[digit]] = value
              offsets[digit] += 1
            }
          }
        }
      }
      swap(&source, &target)
      shift += bits
    }
    return source
  }

  static func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBufferPointer { hash($0) } }

  /// 64-bit FNV-1a.
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      h ^= UInt64(byte)
      h = h &* 0x100_0000_01b3
    }
    return h
  }
}
