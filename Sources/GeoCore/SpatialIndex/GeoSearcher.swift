import Geodesy

/// Answers queries from a `GeoIndex`. Each thread (each connection) makes its own: it keeps the
/// queues and result buffers that queries reuse, so a query allocates nothing once warm.
///
/// Great-circle searches compare squared chord lengths between unit vectors (monotonic in the
/// distance, no trigonometry) and bound each node by the chord distance to its 3-D box. Chords
/// only select candidates, with a relative margin of 1e-9 to absorb rounding; the distances that
/// decide and that are reported are the haversine ones `Sphere.distance` gives, so results equal
/// `LinearScan`'s bit for bit.
public final class GeoSearcher: SpatialQuerying {
  let index: GeoIndex
  // Scratch space. Each query copies these into locals and stores them back, so its loops work
  // on local values rather than class properties.
  var queue = MinQueue()
  var kBound = KBound()
  var found = ScratchBuffer<Ref>()
  var foundKeys = ScratchBuffer<Double>()
  var stack = ScratchBuffer<Ref>()
  var hits = [Hit]()
  var chordHits = ScratchBuffer<ChordHit>(capacity: 16)
  /// The nearest searches' last radius and its squared chord.
  var limitChord = RememberedChord()
  var cells = CellAccumulator()

  init(index: GeoIndex) { self.index = index }

  deinit {
    queue.free()
    kBound.free()
    found.free()
    foundKeys.free()
    cells.free()
    stack.free()
    chordHits.free()
  }

  /// Widens a squared chord bound by the rounding margin.
  @inline(__always)
  static func widen(_ c2: Double) -> Double { c2 * (1 + 1e-9) + 1e-20 }

  /// Runs `body` under the read lock with the tree's buffers and the overflow items.
  @inline(__always)
  func reading<T>(_ body: (TreeView, OverflowView) -> T) -> T {
    let index = self.index
    return index.lock.readers.withReadLock {
      // Through pointers, the overflow is lent in place: passed as a value, it was copied, and
      // its buffers (which every thread's queries share) retained and released on every query.
      withUnsafeMutablePointer(to: &index.state) { state in
        body(state.pointee.tree.view, state.pointee.overflow.view)
      }
    }
  }

  /// Takes the hit buffer out of `self`, emptied, for a query to fill.
  @inline(__always)
  func takeHits() -> [Hit] {
    var h = [Hit]()
    swap(&h, &hits)
    h.removeAll(keepingCapacity: true)
    return h
  }

  @inline(__always)
  func takeStack() -> ScratchBuffer<Ref> {
    var s = stack
    s.count = 0
    return s
  }

  /// Returns the filled buffer to the caller and keeps its storage for the next query. (If the
  /// caller still holds the array then, the next query simply allocates a fresh one.)
  @inline(__always)
  func give(_ h: [Hit]) -> [Hit] {
    hits = h
    return h
  }

  @inline(__always)
  static func pushRoot(_ tree: TreeView, _ filter: Filter, onto stack: inout ScratchBuffer<Ref>) {
    if tree.mayMatch(tree.root, filter) {
      stack.append(Ref(ref: Int32(tree.root), level: Int32(tree.top)))
    }
  }

  @inline(__always)
  static func byDistance(_ a: Hit, _ b: Hit) -> Bool {
    a.distance < b.distance || (a.distance == b.distance && a.id < b.id)
  }
}
