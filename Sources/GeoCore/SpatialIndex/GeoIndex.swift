import Dispatch
import Geodesy

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The in-memory geospatial index every map, pin and people query goes through.
///
/// Concurrency: a `SlottedRWLock` (spinning, writer-preferring; the locks measured are in
/// docs/BENCHMARKS.md), which other indexes may share. Queries share it; each write holds it for
/// one in-place change (about a microsecond). The tree loosens as items move; once enough has
/// changed, or items overflowed a full tree, a fresh tree is built on a background thread from
/// a copy, the writes made meanwhile are replayed onto it, and it replaces the old one in a
/// short final step. Measured alternatives are in docs/BENCHMARKS.md.
public final class GeoIndex: @unchecked Sendable {
  public let sphere: Sphere
  let lock: SlottedRWLock
  /// Guarded by `lock`.
  var state: IndexState
  /// Writes made while a rebuild runs, to replay onto the new tree; nil when none runs.
  private var pending: [Change]?
  /// Trees built so far, inline and in the background (guarded by `lock`).
  private var rebuilds = 0
  /// Indexes this small rebuild inside the write itself: it takes well under a millisecond.
  private static let inlineRebuildLimit = 4096

  enum Change {
    case upsert(Item)
    case remove(ItemID)
  }

  /// Builds the index over `items` in one pass. Later items win over earlier ones with the same
  /// id. Throws, building nothing, if an item has a NaN or out-of-range coordinate or radius.
  /// Indexes may share one `lock` (a slotted lock takes a few kilobytes): a write to any of them
  /// then briefly holds up queries on all.
  public init(
    items: [Item] = [], sphere: Sphere = .earth, lock: SlottedRWLock = SlottedRWLock()
  ) throws(ItemError) {
    for item in items { try item.validate() }
    self.sphere = sphere
    self.lock = lock
    self.state = IndexState(tree: PackedTree(items: Self.unique(items)))
  }

  private static func unique(_ items: [Item]) -> [Item] {
    var seen = [Bool]()
    var out = [Item]()
    out.reserveCapacity(items.count)
    for item in items.reversed() {
      let i = Int(item.id)
      if i >= seen.count {
        seen.append(contentsOf: repeatElement(false, count: i + 1 - seen.count))
      }
      if seen[i] { continue }
      seen[i] = true
      out.append(item)
    }
    return out.count == items.count ? items : out.reversed()
  }

  public var count: Int { lock.withReadLock { state.count } }

  /// Bytes the index holds in memory.
  public var footprint: Int {
    lock.withReadLock {
      state.tree.footprint + state.overflow.items.capacity * (MemoryLayout<Item>.stride + 24 + 16)
    }
  }

  /// What INFO shows of an index: its size, how far it is from a fresh tree, and its rebuilds.
  public struct Statistics: Sendable, Equatable {
    public var count: Int
    /// Items waiting in the overflow, which every query scans.
    public var overflow: Int
    /// Changes since the tree was built that may have loosened it.
    public var wear: Int
    public var rebuilds: Int
    /// Whether a rebuild is running now.
    public var rebuilding: Bool
  }

  public var statistics: Statistics {
    lock.withReadLock {
      Statistics(
        count: state.count, overflow: state.overflow.items.count, wear: state.wear,
        rebuilds: rebuilds, rebuilding: pending != nil)
    }
  }

  /// Of `footprint`, the bytes that hold the items' ids themselves.
  public var idFootprint: Int { lock.withReadLock { state.tree.slotCapacity * 4 } }

  public func item(id: ItemID) -> Item? { lock.withReadLock { state.item(id: id) } }

  /// Every item, in no particular order (what a copy of the index keeps).
  public func allItems() -> [Item] { lock.withReadLock { state.allItems() } }

  /// Inserts an item, or moves and updates it if its id is already indexed. Returns whether it
  /// is new. Throws, changing nothing, for a NaN or out-of-range coordinate or radius.
  @discardableResult
  public func upsert(_ item: Item) throws(ItemError) -> Bool {
    try item.validate()
    return lock.withWriteLock {
      let new = state.upsert(item)
      pending?.append(.upsert(item))
      afterWrite()
      return new
    }
  }

  /// Removes an item; returns whether it was there.
  @discardableResult
  public func remove(id: ItemID) -> Bool {
    lock.withWriteLock {
      let removed = state.remove(id: id)
      if removed {
        pending?.append(.remove(id))
        afterWrite()
      }
      return removed
    }
  }

  /// A query runner for one thread: it owns the scratch buffers queries reuse.
  public func makeSearcher() -> GeoSearcher { GeoSearcher(index: self) }

  /// Rebuilds the tree now and returns when it is done (after bulk changes, or to measure a tight
  /// tree). Queries and writes go on meanwhile.
  public func rebuildNow() {
    let started = lock.withWriteLock { () -> Bool in
      guard pending == nil else { return false }
      pending = []
      return true
    }
    if started {
      rebuild()
    } else {
      while lock.withReadLock({ pending != nil }) { usleep(1000) }
    }
  }

  /// Decides, inside a write or as a rebuild ends, whether the tree should be rebuilt. Called
  /// with the write lock held.
  private func afterWrite() {
    guard pending == nil else { return }
    let n = state.count
    // A small tree rebuilds inline, so it lets a few overflow items gather first: rebuilding it
    // for every item that finds no slot made filling a new key quadratic (5,000 GEOADDs took
    // 0.44 s). Queries scan the overflow linearly; an eighth of a small tree costs little.
    let tolerated = n <= Self.inlineRebuildLimit ? max(16, n / 8) : 0
    guard state.overflow.items.count > tolerated || state.wear > max(Self.inlineRebuildLimit, n / 2)
    else { return }
    if n <= Self.inlineRebuildLimit {
      state = Self.fresh(from: state.allItems(), grow: !state.overflow.isEmpty)
      rebuilds += 1
      return
    }
    pending = []
    DispatchQueue.global(qos: .utility).async { self.rebuild() }
  }

  private static func fresh(from items: [Item], grow: Bool) -> IndexState {
    IndexState(tree: PackedTree(items: items, fill: grow ? 12 : 15))
  }

  /// Builds a new tree from a copy, replays the writes made meanwhile, and swaps it in.
  private func rebuild() {
    let (items, grow) = lock.withReadLock { (state.allItems(), !state.overflow.isEmpty) }
    var next = Self.fresh(from: items, grow: grow)
    for round in 0... {
      // Replay in batches outside the lock; the last short batch inside it, then swap.
      let batch: [Change]? = lock.withWriteLock {
        let changes = pending ?? []
        // After a few rounds writers are outpacing the replay: finish it under the lock.
        if changes.count > 256 && round < 8 {
          pending = []
          return changes
        }
        // The replayed writes count as wear, and those that found no slot wait in the overflow:
        // after a bulk load, most of the last rebuild's writes. No later write may come to look
        // at them, so the next rebuild, if they call for one, starts now.
        for change in changes { Self.apply(change, to: &next) }
        state = next
        pending = nil
        rebuilds += 1
        afterWrite()
        return nil
      }
      guard let batch else { return }
      for change in batch { Self.apply(change, to: &next) }
    }
  }

  private static func apply(_ change: Change, to state: inout IndexState) {
    switch change {
    case .upsert(let item): _ = state.upsert(item)
    case .remove(let id): _ = state.remove(id: id)
    }
  }
}
