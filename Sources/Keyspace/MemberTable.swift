/// The member names of one sorted set, by slot: their bytes back to back in one arena, found
/// through an open-addressing table of slot numbers.
///
/// A dictionary of byte arrays held 1M members in about 80 MB (a heap object per name, 8-byte
/// keys in a table twice the size); this holds the same in about 25 MB, and hashes a name in
/// one pass (Swift's seeded SipHash, so clients cannot aim collisions at a set). A class, so that
/// reading a name from a set's table copies no array references (a struct property did, and
/// its retains and releases cost a GEOSEARCH more than its names).
final class MemberTable {
  private var arena: [UInt8] = []
  /// Per slot: where its bytes start in the arena, and how many; `free` marks an unused slot.
  private var starts: [UInt32] = []
  private var lengths: [UInt32] = []
  /// Open addressing: slot + 1, `empty` (0) or `deleted`.
  private var table: [UInt32] = [UInt32](repeating: 0, count: 16)
  private(set) var count = 0
  private var deletedCount = 0
  private var garbage = 0

  private static let empty: UInt32 = 0
  private static let deleted = UInt32.max
  private static let free = UInt32.max

  /// The slot holding `name`, if any.
  func slot(of name: some Collection<UInt8>) -> UInt32? {
    let mask = table.count - 1
    var i = Self.hash(name) & mask
    while true {
      let entry = table[i]
      if entry == Self.empty { return nil }
      if entry != Self.deleted && equals(Int(entry - 1), name) { return entry - 1 }
      i = (i + 1) & mask
    }
  }

  /// Records `name` at `slot` (which the caller chose, and which must be free).
  func insert(_ name: some Collection<UInt8>, at slot: UInt32) {
    if (count + deletedCount + 1) * 2 > table.count { resizeTable() }
    let s = Int(slot)
    if s >= starts.count {
      starts.append(contentsOf: repeatElement(0, count: s + 1 - starts.count))
      lengths.append(contentsOf: repeatElement(Self.free, count: s + 1 - lengths.count))
    }
    precondition(arena.count + name.count < Int(UInt32.max), "a set's names exceed 4 GiB")
    starts[s] = UInt32(arena.count)
    lengths[s] = UInt32(name.count)
    arena.append(contentsOf: name)
    place(slot)
    count += 1
  }

  /// Forgets the name at `slot`.
  func remove(slot: UInt32) {
    let s = Int(slot)
    let mask = table.count - 1
    var i = Self.hash(arena[range(s)]) & mask
    while table[i] != slot + 1 { i = (i + 1) & mask }
    table[i] = Self.deleted
    deletedCount += 1
    garbage += Int(lengths[s])
    lengths[s] = Self.free
    count -= 1
    if garbage > 4096 && garbage * 2 > arena.count { compact() }
  }

  /// The name at `slot`, copied out.
  func name(_ slot: UInt32) -> Bytes { Array(arena[range(Int(slot))]) }

  /// The name at `slot`, read in place: valid only inside `body`.
  func withName<R>(_ slot: UInt32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    let r = range(Int(slot))
    return try arena.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[r])) }
  }

  /// Whether the name at `a` sorts before the one at `b` (memcmp, then shorter first).
  func precedes(_ a: UInt32, _ b: UInt32) -> Bool {
    arena[range(Int(a))].lexicographicallyPrecedes(arena[range(Int(b))])
  }

  private func range(_ s: Int) -> Range<Int> {
    let start = Int(starts[s])
    return start..<(start + Int(lengths[s]))
  }

  private func equals(_ s: Int, _ name: some Collection<UInt8>) -> Bool {
    Int(lengths[s]) == name.count && arena[range(s)].elementsEqual(name)
  }

  private static func hash(_ name: some Collection<UInt8>) -> Int {
    var hasher = Hasher()
    if name.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) })
      == nil
    {
      Array(name).withUnsafeBytes { hasher.combine(bytes: $0) }
    }
    return hasher.finalize()
  }

  private func place(_ slot: UInt32) {
    let mask = table.count - 1
    var i = Self.hash(arena[range(Int(slot))]) & mask
    while table[i] != Self.empty && table[i] != Self.deleted { i = (i + 1) & mask }
    if table[i] == Self.deleted { deletedCount -= 1 }
    table[i] = slot + 1
  }

  /// Grows (or just cleans) the table so that at most half of it is used.
  private func resizeTable() {
    var size = 16
    while size < (count + 1) * 4 { size *= 2 }
    table = [UInt32](repeating: Self.empty, count: size)
    deletedCount = 0
    for s in 0..<lengths.count where lengths[s] != Self.free { place(UInt32(s)) }
  }

  /// Copies the live names into a fresh arena once half of it is garbage.
  private func compact() {
    var fresh: [UInt8] = []
    fresh.reserveCapacity(arena.count - garbage)
    for s in 0..<lengths.count where lengths[s] != Self.free {
      let r = range(s)
      starts[s] = UInt32(fresh.count)
      fresh.append(contentsOf: arena[r])
    }
    arena = fresh
    garbage = 0
  }
}
