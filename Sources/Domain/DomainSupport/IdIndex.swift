/// Row ids by a key each row holds (a card's code, an account's email or username), where the
/// key itself stays in the row: open addressing with linear probing over 32-bit ids, in a table
/// of a power of two buckets at most three quarters full; 0 is an empty bucket. The caller
/// gives each key's hash and tells whether a row holds the key sought. A dictionary from key to
/// id kept a second copy of each key and 24 bytes a bucket (at a million rows, 2^21 buckets:
/// 50 MB); this keeps 4 bytes a bucket.
///
/// Hashes of keys a client chooses must be seeded (`Hasher`), or a client could choose keys
/// that share a bucket and make every probe walk them all.
public struct IdIndex: Sendable {
  @usableFromInline var buckets: [UInt32] = []
  @usableFromInline var held = 0

  // Inlinable: a start inserts millions, and each call takes a closure.
  @inlinable public init() {}

  @inlinable public var count: Int { held }

  /// Makes room for `count` ids at once, before the first is inserted.
  public mutating func reserve(_ count: Int) {
    precondition(held == 0, "reserve before the first insert")
    var size = max(16, buckets.count)
    while count * 4 > size * 3 { size *= 2 }
    if size > buckets.count { buckets = Array(repeating: 0, count: size) }
  }

  /// The id whose row `holds` the key hashed `hash`, if any.
  @inlinable public func first(hash: Int, where holds: (Int64) -> Bool) -> Int64? {
    guard !buckets.isEmpty else { return nil }
    var i = bucket(hash)
    while buckets[i] != 0 {
      let id = Int64(buckets[i])
      if holds(id) { return id }
      i = (i + 1) & (buckets.count - 1)
    }
    return nil
  }

  /// Adds `id` under `hash`; `hashOf` gives every indexed id's hash, should the table grow.
  @inlinable public mutating func insert(_ id: Int64, hash: Int, hashOf: (Int64) -> Int) {
    guard let slot = UInt32(exactly: id), slot != 0 else {
      preconditionFailure("row ids are from 1 below 2^32")
    }
    if (held + 1) * 4 > buckets.count * 3 {
      resize(to: max(16, buckets.count * 2), hashOf: hashOf)
    }
    var i = bucket(hash)
    while buckets[i] != 0 { i = (i + 1) & (buckets.count - 1) }
    buckets[i] = slot
    held += 1
  }

  /// Removes `id`, indexed under `hash`, moving back the entries after it that may move (so
  /// that no probe stops early at the hole); `hashOf` as for `insert`.
  @inlinable public mutating func remove(_ id: Int64, hash: Int, hashOf: (Int64) -> Int) {
    guard !buckets.isEmpty else { return }
    let mask = buckets.count - 1
    var hole = bucket(hash)
    while buckets[hole] != UInt32(truncatingIfNeeded: id) {
      guard buckets[hole] != 0 else { return }
      hole = (hole + 1) & mask
    }
    var j = hole
    while true {
      j = (j + 1) & mask
      guard buckets[j] != 0 else { break }
      let home = bucket(hashOf(Int64(buckets[j])))
      // The entry at j stays if its home lies cyclically in (hole, j].
      let stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j)
      if !stays {
        buckets[hole] = buckets[j]
        hole = j
      }
    }
    buckets[hole] = 0
    held -= 1
  }

  @inlinable func bucket(_ hash: Int) -> Int {
    // Fibonacci hashing spreads any hash, however its low bits fall, over the high bits.
    Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(hash)) &* 0x9E37_79B9_7F4A_7C15) >> 32)
      & (buckets.count - 1)
  }

  @usableFromInline mutating func resize(to size: Int, hashOf: (Int64) -> Int) {
    let ids = buckets.filter { $0 != 0 }
    buckets = Array(repeating: 0, count: size)
    for id in ids {
      var i = bucket(hashOf(Int64(id)))
      while buckets[i] != 0 { i = (i + 1) & (size - 1) }
      buckets[i] = id
    }
  }
}
