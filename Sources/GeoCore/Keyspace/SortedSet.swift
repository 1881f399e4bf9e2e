import Geodesy
import SpatialIndex
import Synchronization

/// A sorted set as GEO keys use it: members with scores, where a score is a 52-bit Redis
/// geohash (or, after GEOSEARCHSTORE's STOREDIST, a distance). Each member's position, decoded
/// from its score as Redis decodes it, is kept in a spatial index, so searches visit only what
/// is near instead of scanning geohash cells.
///
/// Not thread-safe on its own: the `Keyspace` lock guards it (readers share, writers exclude).
public final class SortedSet: @unchecked Sendable {
  /// Members by slot; slots are the index's item ids.
  let names: MemberTable
  private var scores: [Double] = []
  /// Slots by (score, member), for ranks and ranges.
  private let order: ScoreOrder
  private var freeSlots: [ItemID] = []
  let index: GeoIndex
  /// Searchers reuse their scratch buffers. Each thread with a `ThreadSlot` keeps its own here
  /// (only that thread reads or writes its slot), lent unretained (`Searchers.owned` holds it);
  /// other threads borrow from the pool.
  private let ownScratch = PerThread<Unmanaged<SearchScratch>>()
  private let searchers = Mutex(Searchers())

  /// One lock for every set's index: writes to any set already exclude every search (the
  /// `Keyspace` lock), so sharing it costs nothing, and a set costs no lock of its own.
  private static let indexLock = SlottedRWLock()

  public init() {
    names = MemberTable()
    order = ScoreOrder(names: names)
    index = try! GeoIndex(sphere: .redis, lock: Self.indexLock)
  }

  /// A set built in one pass (loading from the store): one bulk index build instead of an
  /// insert per member. Later duplicates of a member win.
  public init(entries: [(member: Bytes, score: Double)]) {
    names = MemberTable()
    order = ScoreOrder(names: names)
    var items: [Item] = []
    items.reserveCapacity(entries.count)
    for (member, score) in entries {
      let at = Self.position(score: score)
      if let slot = names.slot(of: member) {
        scores[Int(slot)] = score
        items[Int(slot)] = Item(id: slot, longitude: at.longitude, latitude: at.latitude)
        continue
      }
      let slot = ItemID(scores.count)
      names.insert(member, at: slot)
      scores.append(score)
      items.append(Item(id: slot, longitude: at.longitude, latitude: at.latitude))
    }
    index = try! GeoIndex(items: items, sphere: .redis, lock: Self.indexLock)
    // Sorted as pairs, the scores beside the slots rather than looked up per comparison.
    var sorted = scores.indices.map { (score: scores[$0], slot: UInt32($0)) }
    sorted.sort { a, b in
      a.score < b.score || (a.score == b.score && names.precedes(a.slot, b.slot))
    }
    order.build(sorted.map(\.slot), scores: scores)
  }

  public var count: Int { names.count }

  public func score(of member: Bytes) -> Double? {
    names.slot(of: member).map { scores[Int($0)] }
  }

  /// The position Redis reports for a score (`decodeGeohash`): the centre of its 52-bit cell.
  public static func position(score: Double) -> Coordinate {
    RedisGeohash.coordinate(score: geohash(score: score))
  }

  /// C's `(uint64_t)score`, defined here for every score (scores are never negative).
  static func geohash(score: Double) -> UInt64 {
    score >= 0 && score < 0x1p64 ? UInt64(score) : 0
  }

  /// Adds or rescores a member. Returns whether it is new and whether its score changed.
  @discardableResult
  public func upsert(_ member: Bytes, score: Double) -> (added: Bool, changed: Bool) {
    let position = Self.position(score: score)
    if let slot = names.slot(of: member) {
      guard scores[Int(slot)] != score else { return (false, false) }
      order.remove(slot, score: scores[Int(slot)])
      scores[Int(slot)] = score
      order.insert(slot, score: score)
      try! index.upsert(
        Item(id: slot, longitude: position.longitude, latitude: position.latitude))
      return (false, true)
    }
    let slot: ItemID
    if let reused = freeSlots.popLast() {
      slot = reused
      scores[Int(slot)] = score
    } else {
      slot = ItemID(scores.count)
      scores.append(score)
    }
    names.insert(member, at: slot)
    order.insert(slot, score: score)
    try! index.upsert(Item(id: slot, longitude: position.longitude, latitude: position.latitude))
    return (true, true)
  }

  /// Removes a member; returns whether it was there.
  @discardableResult
  public func remove(_ member: Bytes) -> Bool {
    guard let slot = names.slot(of: member) else { return false }
    order.remove(slot, score: scores[Int(slot)])
    names.remove(slot: slot)
    index.remove(id: slot)
    freeSlots.append(slot)
    return true
  }

  /// The members at `ranks` (within `0..<count`) with their scores, in Redis's order: by
  /// score, then by member bytes; with `reverse`, ranks count from the end, and the order too.
  public func entries(ranks: ClosedRange<Int>, reverse: Bool) -> [(member: Bytes, score: Double)] {
    let forward =
      reverse
      ? count - 1 - ranks.upperBound..<count - ranks.lowerBound
      : ranks.lowerBound..<ranks.upperBound + 1
    return entries(forward, reverse: reverse)
  }

  /// Members whose score lies between the bounds, in score order (or reversed): `offset` of
  /// them skipped, then at most `limit` (a negative offset or limit counts as none).
  public func entries(
    scores range: ScoreRange, reverse: Bool, offset: Int, limit: Int?
  ) -> [(member: Bytes, score: Double)] {
    let within = ranks(range)
    let skipped = max(offset, 0)
    guard skipped < within.count else { return [] }
    let taken = min(max(limit ?? within.count, 0), within.count - skipped)
    let start = reverse ? within.upperBound - skipped - taken : within.lowerBound + skipped
    return entries(start..<start + taken, reverse: reverse)
  }

  /// How many members score between the bounds (ZCOUNT).
  public func count(scores range: ScoreRange) -> Int { ranks(range).count }

  /// How many members come before `member` in Redis's order (ZRANK), if it is here.
  public func rank(of member: Bytes) -> Int? {
    names.slot(of: member).map { order.rank(of: $0, score: scores[Int($0)]) }
  }

  /// The ranks of the members scoring between the bounds.
  private func ranks(_ range: ScoreRange) -> Range<Int> {
    let low = order.count(below: range.min, orEqual: range.minExclusive)
    let high = order.count(below: range.max, orEqual: !range.maxExclusive)
    return low..<max(low, high)
  }

  private func entries(_ ranks: Range<Int>, reverse: Bool) -> [(member: Bytes, score: Double)] {
    var out: [(member: Bytes, score: Double)] = []
    out.reserveCapacity(ranks.count)
    order.forEach(ranks) { slot, score in out.append((names.name(slot), score)) }
    return reverse ? out.reversed() : out
  }

  /// A search result's member name.
  public func member(_ match: GeoMatch) -> Bytes { names.name(match.slot) }

  /// A search result's member name, read in place under the lock the search ran under: valid
  /// only inside `body`, and only while the set is unchanged.
  public func withMember<R>(_ match: GeoMatch, _ body: (UnsafeRawBufferPointer) throws -> R)
    rethrows -> R
  {
    try names.withName(match.slot, body)
  }
  /// The total length of the search results' member names.
  public func memberLengths(_ matches: UnsafeBufferPointer<GeoMatch>) -> Int {
    names.totalLength(matches.lazy.map { $0.slot })
  }

  /// Runs `body` with each search result's member name in place, in order, under the lock the
  /// search ran under: valid only inside `body`, and only while the set is unchanged.
  public func forEachMember(
    of matches: UnsafeBufferPointer<GeoMatch>, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) rethrows {
    try names.forEachName(matches.lazy.map { $0.slot }, body)
  }

  func score(slot: ItemID) -> Double { scores[Int(slot)] }

  /// Scratch space no other thread uses until `giveBack`: this thread's own, or one from the
  /// pool. (Taken and given back rather than lent to a closure, which would retain the set; and
  /// unmanaged, so that a thread's own is lent without a reference counted.)
  func takeScratch() -> Unmanaged<SearchScratch> {
    if let slot = ThreadSlot.current {
      if let scratch = ownScratch[slot] { return scratch }
      let scratch = SearchScratch(index.makeSearcher(), pooled: false)
      searchers.withLock { $0.owned.append(scratch) }
      ownScratch[slot] = .passUnretained(scratch)
      return .passUnretained(scratch)
    }
    let pooled =
      searchers.withLock { $0.take() }.scratch
      ?? SearchScratch(index.makeSearcher(), pooled: true)
    return .passRetained(pooled)
  }

  func giveBack(_ scratch: Unmanaged<SearchScratch>) {
    guard scratch._withUnsafeGuaranteedRef({ $0.pooled }) else { return }
    let taken = scratch.takeRetainedValue()
    searchers.withLock { $0.free.append(taken) }
  }

  /// What a search reuses: a searcher, and room for its nearest matches (lent to the caller,
  /// and written over by the next search: raw storage, so no array's uniqueness is checked on
  /// every match written).
  final class SearchScratch {
    let searcher: GeoSearcher
    /// Whether it belongs to the shared pool rather than to a thread's slot.
    let pooled: Bool
    private(set) var matches = UnsafeMutablePointer<GeoMatch>.allocate(capacity: 16)
    private var capacity = 16
    /// The last search radius and its squared chord.
    var insideChord = RememberedChord()

    init(_ searcher: GeoSearcher, pooled: Bool) {
      self.searcher = searcher
      self.pooled = pooled
    }

    deinit { matches.deallocate() }

    /// Makes room for `count` matches; what `matches` held is let go.
    func reserve(_ count: Int) {
      guard count > capacity else { return }
      matches.deallocate()
      capacity = max(count, 2 * capacity)
      matches = .allocate(capacity: capacity)
    }
  }

  /// Idle scratch spaces, each used by one thread at a time: taken, used, put back. And those
  /// threads own, kept here while the set lives.
  private struct Searchers: @unchecked Sendable {
    var free: [SearchScratch] = []
    var owned: [SearchScratch] = []

    struct Taken: @unchecked Sendable { let scratch: SearchScratch? }

    mutating func take() -> Taken { Taken(scratch: free.popLast()) }
  }
}

/// A ZRANGE BYSCORE interval; either end may be exclusive or infinite.
public struct ScoreRange: Sendable {
  public var min: Double
  public var minExclusive: Bool
  public var max: Double
  public var maxExclusive: Bool

  public init(min: Double, minExclusive: Bool, max: Double, maxExclusive: Bool) {
    self.min = min
    self.minExclusive = minExclusive
    self.max = max
    self.maxExclusive = maxExclusive
  }

  public func contains(_ score: Double) -> Bool {
    (minExclusive ? score > min : score >= min) && (maxExclusive ? score < max : score <= max)
  }
}
