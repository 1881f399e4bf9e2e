import Geodesy

extension GeoSearcher {
  public func nearest(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double = .infinity,
    filter: Filter = .all
  ) -> [Hit] {
    var out = takeHits()
    guard k > 0, maxDistance >= 0 else { return give(out) }
    let q = UnitVector(longitude: longitude, latitude: latitude)
    let limit = Self.widen(index.sphere.chordSquared(forDistance: maxDistance))
    let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
    var queue = self.queue
    var kBound = self.kBound
    var found = self.found
    reading { tree, overflow in
      Self.bestFirst(
        tree, overflow, q: q, k: k, limit: limit, filter: filter, queue: &queue, kBound: &kBound,
        found: &found)
      for i in 0..<found.count {
        let ref = found[i]
        let item = ref.level == Ref.itemInTree ? tree.item(at: Int(ref.ref)) : overflow.items[Int(ref.ref)]
        let d = from.distance(longitude: item.longitude, latitude: item.latitude)
        if d <= maxDistance {
          out.append(Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: d))
        }
      }
    }
    self.queue = queue
    self.kBound = kBound
    self.found = found
    out.sort(by: Self.byDistance)
    if out.count > k { out.removeLast(out.count - k) }
    return give(out)
  }

  /// Best-first search: pops nodes and items in order of their chord bound, collecting into
  /// `found` every item within the k-th smallest chord seen (plus margin), so the exact haversine
  /// ranking afterwards cannot miss a near tie.
  @inline(__always)
  static func bestFirst(
    _ tree: TreeView, _ overflow: borrowing Overflow, q: UnitVector, k: Int, limit: Double,
    filter: Filter, queue: inout MinQueue, kBound: inout KBound, found: inout ScratchBuffer<Ref>
  ) {
    queue.removeAll()
    found.count = 0
    kBound.reset(k: k)
    var bound = limit

    for i in overflow.vectors.indices where filter.matches(overflow.items[i].attributes) {
      let c2 = overflow.vectors[i].chordSquared(to: q)
      if c2 <= bound {
        queue.push(c2, Ref(ref: Int32(i), level: Ref.itemInOverflow))
        if kBound.offer(c2), kBound.isFull { bound = min(limit, widen(kBound.top)) }
      }
    }
    if tree.mayMatch(tree.root, filter) {
      queue.push(0, Ref(ref: Int32(tree.root), level: Int32(tree.top)))
    }
    while !queue.isEmpty {
      let (key, entry) = queue.pop()
      if key > bound { break }
      if entry.level < 0 {
        found.append(entry)
        continue
      }
      let g = Int(entry.ref)
      if entry.level == 0 {
        for s in tree.slots(of: g) where tree.passes(s, filter) {
          let c2 = tree.chordSquared(slot: s, q)
          guard c2 <= bound else { continue }
          queue.push(c2, Ref(ref: Int32(s), level: Ref.itemInTree))
          if kBound.offer(c2), kBound.isFull { bound = min(limit, widen(kBound.top)) }
        }
      } else {
        let level = Int(entry.level)
        for c in tree.children(of: g, level: level) where tree.mayMatchBoxed(c, filter) {
          let lb = tree.lowerBound(node: c, q)
          if lb <= bound {
            tree.prefetch(node: c, level: level - 1)
            queue.push(lb, Ref(ref: Int32(c), level: entry.level - 1))
          }
        }
      }
    }
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
