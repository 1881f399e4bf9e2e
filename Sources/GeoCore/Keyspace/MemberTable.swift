/// The member names of one sorted set, by slot: their bytes back to back in one arena, found
/// through an open-addressing table of slot numbers.
///
/// A dictionary of byte arrays held 1M members in about 80 MB (a heap object per name, 8-byte
/// keys in a table twice the size); this holds the same in about 25 MB, and hashes a name in
/// one pass (Swift's seeded SipHash, so clients cannot aim collisions at a set). A class, so that
/// reading a name from a set's table copies no array references (a struct property did, and
/// its retains and releases cost a GEOSEARCH more than its names).
final class MemberTable {
  /// Raw memory rather than an array: reading a name then retains nothing.
  private var arena = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
  private var arenaCount = 0
  private var arenaCapacity = 64
  /// Per slot: where its bytes start in the arena, and how many (`free` marks an unused slot).
  /// Raw memory too: a search's reply reads them for every name it writes.
  private var spans = UnsafeMutablePointer<Span>.allocate(capacity: 16)
  private var spanCount = 0
  private var spanCapacity = 16
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
    if s >= spanCount { addSlots(upTo: s) }
    precondition(arenaCount + name.count < Int(UInt32.max), "a set's names exceed 4 GiB")
    reserveArena(arenaCount + name.count)
    spans[s] = Span(start: UInt32(arenaCount), length: UInt32(name.count))
    _ = UnsafeMutableBufferPointer(start: arena + arenaCount, count: name.count)
      .initialize(from: name)
    arenaCount += name.count
    place(slot)
    count += 1
  }

  /// Forgets the name at `slot`.
  func remove(slot: UInt32) {
    let s = Int(slot)
    let mask = table.count - 1
    var i = Self.hash(bytes(s)) & mask
    while table[i] != slot + 1 { i = (i + 1) & mask }
    table[i] = Self.deleted
    deletedCount += 1
    garbage += Int(spans[s].length)
    spans[s].length = Self.free
    count -= 1
    if garbage > 4096 && garbage * 2 > arenaCount { compact() }
  }

  /// The name at `slot`, copied out.
  func name(_ slot: UInt32) -> Bytes { Array(bytes(Int(slot))) }

  /// The name at `slot`, read in place: valid only inside `body`.
  func withName<R>(_ slot: UInt32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(bytes(Int(slot))))
  }

  /// The total length of the names at `slots`.
  func totalLength(_ slots: some Sequence<UInt32>) -> Int {
    let spans = spans
    return slots.reduce(0) { $0 + Int(spans[Int($1)].length) }
  }

  /// Runs `body` with the name at each of `slots` in place, in order: one pass with the table's
  /// storage in hand rather than a call per name.
  func forEachName(
    _ slots: some Sequence<UInt32>, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) rethrows {
    let arena = arena
    let spans = spans
    for slot in slots {
      let span = spans[Int(slot)]
      try body(UnsafeRawBufferPointer(start: arena + Int(span.start), count: Int(span.length)))
    }
  }

  /// Whether the name at `a` sorts before the one at `b` (memcmp, then shorter first).
  func precedes(_ a: UInt32, _ b: UInt32) -> Bool {
    bytes(Int(a)).lexicographicallyPrecedes(bytes(Int(b)))
  }

  deinit {
    arena.deallocate()
    spans.deallocate()
  }

  /// The name at slot `s`, in place.
  private func bytes(_ s: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: arena + Int(spans[s].start), count: Int(spans[s].length))
  }

  private func equals(_ s: Int, _ name: some Collection<UInt8>) -> Bool {
    Int(spans[s].length) == name.count && bytes(s).elementsEqual(name)
  }

  /// Room for `needed` bytes in the arena, growing it by half again (or to fit).
  private func reserveArena(_ needed: Int) {
    guard needed > arenaCapacity else { return }
    arena = Self.grown(arena, keeping: arenaCount, capacity: &arenaCapacity, toHold: needed)
  }

  /// Makes slots up to `s` exist, the new ones free, growing the spans by half again (or to fit).
  private func addSlots(upTo s: Int) {
    if s >= spanCapacity {
      spans = Self.grown(spans, keeping: spanCount, capacity: &spanCapacity, toHold: s + 1)
    }
    (spans + spanCount).initialize(
      repeating: Span(start: 0, length: Self.free), count: s + 1 - spanCount)
    spanCount = s + 1
  }

  /// A larger copy of `buffer` (whose first `count` elements are moved over, and which is freed):
  /// half again its `capacity`, or `needed` if more.
  private static func grown<T>(
    _ buffer: UnsafeMutablePointer<T>, keeping count: Int, capacity: inout Int, toHold needed: Int
  ) -> UnsafeMutablePointer<T> {
    capacity = max(needed, capacity + capacity / 2)
    let grown = UnsafeMutablePointer<T>.allocate(capacity: capacity)
    grown.moveInitialize(from: buffer, count: count)
    buffer.deallocate()
    return grown
  }

  private struct Span {
    var start: UInt32
    var length: UInt32
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
    var i = Self.hash(bytes(Int(slot))) & mask
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
    for s in 0..<spanCount where spans[s].length != Self.free { place(UInt32(s)) }
  }

  /// Copies the live names into a fresh arena once half of it is garbage.
  private func compact() {
    let capacity = max(64, arenaCount - garbage)
    let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    var count = 0
    for s in 0..<spanCount where spans[s].length != Self.free {
      let name = bytes(s)
      (fresh + count).initialize(from: name.baseAddress!, count: name.count)
      spans[s].start = UInt32(count)
      count += name.count
    }
    arena.deallocate()
    arena = fresh
    arenaCount = count
    arenaCapacity = capacity
    garbage = 0
  }
}
