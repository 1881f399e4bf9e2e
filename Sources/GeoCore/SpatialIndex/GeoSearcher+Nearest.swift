import Geodesy

extension GeoSearcher {
  public func nearest(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double = .infinity,
    filter: Filter = .all
  ) -> [Hit] {
    var out = takeHits()
    guard k > 0, maxDistance >= 0 else { return give(out) }
    let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
    forEachCandidate(
      longitude: longitude, latitude: latitude, k: k, within: maxDistance, filter: filter
    ) { item, _ in
      let d = from.distance(longitude: item.longitude, latitude: item.latitude)
      if d <= maxDistance {
        out.append(
          Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: d))
      }
    }
    out.sort(by: Self.byDistance)
    if out.count > k { out.removeLast(out.count - k) }
    return give(out)
  }

  /// The `k` items nearest by chord within `maxDistance` metres (widened by the rounding margin),
  /// nearest first, ties by id, without measuring any in metres: for callers that need the
  /// haversine of only the few whose order or inclusion the chords leave in doubt. They are lent
  /// to `body` from the searcher's own buffer (no array to count references to), valid only
  /// inside it; `body` must not query this searcher again.
  public func nearestChords<R>(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double,
    filter: Filter = .all, _ body: (UnsafeBufferPointer<ChordHit>) -> R
  ) -> R {
    var out = chordHits
    out.count = 0
    if k > 0, maxDistance >= 0 {
      forEachCandidate(
        longitude: longitude, latitude: latitude, k: k, within: maxDistance, filter: filter,
        nearestFirst: true
      ) { item, chordSquared in
        out.append(
          ChordHit(
            id: item.id, longitude: item.longitude, latitude: item.latitude,
            chordSquared: chordSquared))
      }
    }
    chordHits = out
    return body(UnsafeBufferPointer(start: out.base, count: out.count))
  }

  /// Runs the best-first search for the `k` nearest within `maxDistance` (widened by the
  /// rounding margin) and hands `visit` each candidate it keeps, with its squared chord, under
  /// the read lock. The candidates are a superset of the k nearest, in no order; with
  /// `nearestFirst`, only the first `k` of them by chord (then id), in that order.
  @inline(__always)
  private func forEachCandidate(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double, filter: Filter,
    nearestFirst: Bool = false, _ visit: (Item, Double) -> Void
  ) {
    let q = UnitVector(longitude: longitude, latitude: latitude)
    let limit = Self.widen(limitChord.chordSquared(forDistance: maxDistance, on: index.sphere))
    var queue = self.queue
    var kBound = self.kBound
    var found = self.found
    var foundKeys = self.foundKeys
    reading { tree, overflow in
      Self.bestFirst(
        tree, overflow, q: q, k: k, limit: limit, filter: filter, queue: &queue, kBound: &kBound,
        found: &found, foundKeys: &foundKeys)
      @inline(__always) func item(_ ref: Ref) -> Item {
        ref.level == Ref.itemInTree ? tree.item(at: Int(ref.ref)) : overflow.items[Int(ref.ref)]
      }
      var visited = found.count
      if nearestFirst {
        // A dozen or so candidates: sorted in place by chord, then id, moving keys and refs.
        for i in 1..<max(found.count, 1) {
          let key = foundKeys[i]
          let ref = found[i]
          var j = i
          while j > 0 {
            let other = foundKeys[j - 1]
            guard other > key || (other == key && item(found[j - 1]).id > item(ref).id) else {
              break
            }
            foundKeys[j] = other
            found[j] = found[j - 1]
            j -= 1
          }
          foundKeys[j] = key
          found[j] = ref
        }
        visited = min(k, found.count)
      }
      for i in 0..<visited { visit(item(found[i]), foundKeys[i]) }
    }
    self.queue = queue
    self.kBound = kBound
    self.found = found
    self.foundKeys = foundKeys
  }

  /// Best-first search over nodes by their chord bound. Items are not queued: each one nearer
  /// than the current bound (the k-th smallest chord offered so far, plus margin) is kept in
  /// `found`; at the end those still within the final bound are the candidates, so the exact
  /// haversine ranking afterwards cannot miss a near tie. A greedy dive to the nearest leaf
  /// first makes the bound tight before the queue is ever popped.
  @inline(__always)
  static func bestFirst(
    _ tree: TreeView, _ overflow: OverflowView, q: UnitVector, k: Int, limit: Double,
    filter: Filter, queue: inout MinQueue, kBound: inout KBound, found: inout ScratchBuffer<Ref>,
    foundKeys: inout ScratchBuffer<Double>
  ) {
    queue.removeAll()
    found.count = 0
    foundKeys.count = 0
    kBound.reset(k: k)
    var bound = limit
    let qf = FloatQuery(q)
    var bounds = SIMD16<Float>()

    @inline(__always) func offer(_ c2: Double, _ ref: Ref) {
      guard c2 <= bound else { return }
      found.append(ref)
      foundKeys.append(c2)
      if kBound.offer(c2), kBound.isFull { bound = min(limit, widen(kBound.top)) }
    }
    @inline(__always) func offerLeaf(_ g: Int) {
      for s in tree.slots(of: g) where tree.passes(s, filter) {
        offer(tree.chordSquared(slot: s, q), Ref(ref: Int32(s), level: Ref.itemInTree))
      }
    }

    for i in overflow.vectors.indices where filter.matches(overflow.items[i].attributes) {
      offer(overflow.vectors[i].chordSquared(to: q), Ref(ref: Int32(i), level: Ref.itemInOverflow))
    }
    guard tree.mayMatch(tree.root, filter) else { return }

    // Dive: the child with the smallest bound at each level, down to a leaf. The children
    // passed over (those within the limit) are set aside, and queued once the leaf has made the
    // bound tight, so the search goes on from them without revisiting the path.
    var passed = 0
    var dive = tree.root
    var level = tree.top
    while level > 0 {
      let first = tree.firstChild(of: dive, level: level)
      var lanes = tree.boxes.bounds(group: first, qf, limit: bound, into: &bounds)
      var best = -1
      var bestBound = Double.infinity
      while lanes != 0 {
        let j = lanes.trailingZeroBitCount
        lanes &= lanes - 1
        let c = first + j
        guard tree.mayMatchBoxed(c, filter) else { continue }
        let lb = Double(bounds[j])
        if lb < bestBound {
          if best >= 0 {
            queue.setAside(bestBound, Ref(ref: Int32(best), level: Int32(level - 1)), at: &passed)
          }
          best = c
          bestBound = lb
        } else {
          queue.setAside(lb, Ref(ref: Int32(c), level: Int32(level - 1)), at: &passed)
        }
      }
      guard best >= 0 else { break }
      dive = best
      level -= 1
    }
    // (A dive that stops early met a node with nothing that passes the filter.)
    if level == 0 { offerLeaf(dive) }
    queue.queueSetAside(passed, within: bound)

    while !queue.isEmpty {
      let (key, entry) = queue.pop()
      if key > bound { break }
      let g = Int(entry.ref)
      if entry.level == 0 {
        offerLeaf(g)
        continue
      }
      let level = Int(entry.level)
      let first = tree.firstChild(of: g, level: level)
      var lanes = tree.boxes.bounds(group: first, qf, limit: bound, into: &bounds)
      while lanes != 0 {
        let j = lanes.trailingZeroBitCount
        lanes &= lanes - 1
        let c = first + j
        guard tree.mayMatchBoxed(c, filter) else { continue }
        tree.prefetch(node: c, level: level - 1)
        queue.push(Double(bounds[j]), Ref(ref: Int32(c), level: entry.level - 1))
      }
    }
    // Keep only what is still within the final bound.
    var kept = 0
    for i in 0..<found.count where foundKeys[i] <= bound {
      found[kept] = found[i]
      foundKeys[kept] = foundKeys[i]
      kept += 1
    }
    found.count = kept
    foundKeys.count = kept
  }

  /// The `count` nearest items within `radius` metres when `sorted`; else every one, unordered.
  public func radius(
    longitude: Double, latitude: Double, radius: Double, filter: Filter = .all, sorted: Bool,
    count: Int = .max
  ) -> [Hit] {
    if sorted {
      return nearest(
        longitude: longitude, latitude: latitude, k: count, within: radius, filter: filter)
    }
    var out = self.radius(longitude: longitude, latitude: latitude, radius: radius, filter: filter)
    hits = []
    if out.count > count { out.removeLast(out.count - count) }
    return give(out)
  }
}
