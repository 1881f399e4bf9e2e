import CPrefetch
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
  private var queue = MinQueue()
  private var kBound = KBound()
  private var found = [Ref]()
  private var stack = [Ref]()
  private var hits = [Hit]()
  private var cells = [Int: ClusterCell]()

  init(index: GeoIndex) { self.index = index }

  /// Widens a squared chord bound by the rounding margin.
  @inline(__always)
  private static func widen(_ c2: Double) -> Double { c2 * (1 + 1e-9) + 1e-20 }

  // MARK: k nearest

  public func nearest(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double = .infinity,
    filter: Filter = .all
  ) -> [Hit] {
    hits.removeAll(keepingCapacity: true)
    guard k > 0, maxDistance >= 0 else { return hits }
    index.lock.withReadLock {
      nearest(
        in: index.state, q: UnitVector(longitude: longitude, latitude: latitude), k: k,
        limit: Self.widen(index.sphere.chordSquared(forDistance: maxDistance)), filter: filter)
      let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
      for ref in found {
        let hit = hitFor(ref, from: from, in: index.state)
        if hit.distance <= maxDistance { hits.append(hit) }
      }
    }
    hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.id < $1.id) }
    if hits.count > k { hits.removeLast(hits.count - k) }
    return hits
  }

  /// Best-first search: pops nodes and items in order of their chord bound, collecting into
  /// `found` every item within the k-th smallest chord seen (plus margin), so the exact haversine
  /// ranking afterwards cannot miss a near tie.
  private func nearest(in state: IndexState, q: UnitVector, k: Int, limit: Double, filter: Filter) {
    let tree = state.tree
    queue.removeAll()
    found.removeAll(keepingCapacity: true)
    kBound.reset(k: k)
    var bound = limit

    @inline(__always) func offer(_ c2: Double, _ ref: Ref) {
      guard c2 <= bound else { return }
      queue.push(c2, ref)
      if kBound.offer(c2), kBound.isFull { bound = min(limit, Self.widen(kBound.top)) }
    }

    for (i, v) in state.overflow.vectors.enumerated()
    where filter.matches(state.overflow.items[i].attributes) {
      offer(v.chordSquared(to: q), Ref(ref: Int32(i), level: Ref.itemInOverflow))
    }
    let root = tree.rootNode
    if tree.count[root] > 0, filter.mayMatch(any: tree.anyBits[root], every: tree.everyBits[root]) {
      queue.push(0, Ref(ref: Int32(root), level: Int32(tree.top)))
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
        let base = g << PackedTree.shift
        for s in base..<(base + Int(tree.count[g])) where filter.matches(tree.attrs[s]) {
          offer(tree.chordSquared(slot: s, q), Ref(ref: Int32(s), level: Ref.itemInTree))
        }
      } else {
        let level = Int(entry.level)
        for c in tree.children(level: level, index: g - tree.levelStart[level]) {
          guard tree.count[c] > 0,
            filter.mayMatch(any: tree.anyBits[c], every: tree.everyBits[c])
          else { continue }
          let lb = tree.lowerBound(node: c, q)
          if lb <= bound { queue.push(lb, Ref(ref: Int32(c), level: entry.level - 1)) }
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
    let found = self.radius(longitude: longitude, latitude: latitude, radius: radius, filter: filter)
      .count
    if found > count { hits.removeLast(found - count) }
    return hits
  }

  // MARK: Radius

  public func radius(
    longitude: Double, latitude: Double, radius: Double, filter: Filter = .all
  ) -> [Hit] {
    hits.removeAll(keepingCapacity: true)
    guard radius >= 0 else { return hits }
    let q = UnitVector(longitude: longitude, latitude: latitude)
    let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
    let limit = Self.widen(index.sphere.chordSquared(forDistance: radius))
    index.lock.withReadLock {
      let state = index.state
      let tree = state.tree
      for (i, v) in state.overflow.vectors.enumerated() {
        let item = state.overflow.items[i]
        guard filter.matches(item.attributes), v.chordSquared(to: q) <= limit else { continue }
        let d = from.distance(longitude: item.longitude, latitude: item.latitude)
        if d <= radius {
          hits.append(Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: d))
        }
      }
      stack.removeAll(keepingCapacity: true)
      pushRoot(tree, filter)
      while let entry = stack.popLast() {
        let g = Int(entry.ref)
        if entry.level == 0 {
          let base = g << PackedTree.shift
          for s in base..<(base + Int(tree.count[g]))
          where filter.matches(tree.attrs[s]) && tree.chordSquared(slot: s, q) <= limit {
            let lon = tree.lonlat[s * 2]
            let lat = tree.lonlat[s * 2 + 1]
            let d = from.distance(longitude: lon, latitude: lat)
            if d <= radius {
              hits.append(Hit(id: tree.ids[s], longitude: lon, latitude: lat, distance: d))
            }
          }
          continue
        }
        let level = Int(entry.level)
        for c in tree.children(level: level, index: g - tree.levelStart[level]) {
          guard tree.count[c] > 0, filter.mayMatch(any: tree.anyBits[c], every: tree.everyBits[c]),
            tree.lowerBound(node: c, q) <= limit
          else { continue }
          tree.prefetch(node: c, level: level - 1)
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    return hits
  }

  private func pushRoot(_ tree: PackedTree, _ filter: Filter) {
    let root = tree.rootNode
    if tree.count[root] > 0, filter.mayMatch(any: tree.anyBits[root], every: tree.everyBits[root]) {
      stack.append(Ref(ref: Int32(root), level: Int32(tree.top)))
    }
  }

  private func hitFor(_ ref: Ref, from: Sphere.DistanceFrom, in state: IndexState) -> Hit {
    let item: Item =
      ref.level == Ref.itemInTree
      ? state.tree.item(at: Int(ref.ref)) : state.overflow.items[Int(ref.ref)]
    return Hit(
      id: item.id, longitude: item.longitude, latitude: item.latitude,
      distance: from.distance(longitude: item.longitude, latitude: item.latitude))
  }

  // MARK: Box

  public func box(_ box: GeoBox, filter: Filter = .all) -> [Hit] {
    self.box(box, filter: filter, limit: .max)
  }

  /// Every matching item in the box, at most `limit` of them.
  public func box(_ box: GeoBox, filter: Filter = .all, limit: Int) -> [Hit] {
    hits.removeAll(keepingCapacity: true)
    guard limit > 0 else { return hits }
    index.lock.withReadLock {
      let state = index.state
      let tree = state.tree
      for item in state.overflow.items
      where filter.matches(item.attributes)
        && box.contains(longitude: item.longitude, latitude: item.latitude)
      {
        hits.append(Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: 0))
      }
      stack.removeAll(keepingCapacity: true)
      pushRoot(tree, filter)
      // `level` carries a flag in its high bit: the node lies wholly inside the box.
      let inside: Int32 = 1 << 16
      traversal: while let entry = stack.popLast() {
        let g = Int(entry.ref)
        let whole = entry.level & inside != 0
        let level = Int(entry.level & ~inside)
        if level == 0 {
          let base = g << PackedTree.shift
          for s in base..<(base + Int(tree.count[g])) where filter.matches(tree.attrs[s]) {
            let lon = tree.lonlat[s * 2]
            let lat = tree.lonlat[s * 2 + 1]
            guard whole || box.contains(longitude: lon, latitude: lat) else { continue }
            hits.append(Hit(id: tree.ids[s], longitude: lon, latitude: lat, distance: 0))
            if hits.count >= limit { break traversal }
          }
          continue
        }
        for c in tree.children(level: level, index: g - tree.levelStart[level]) {
          guard tree.count[c] > 0, filter.mayMatch(any: tree.anyBits[c], every: tree.everyBits[c])
          else { continue }
          if whole {
            stack.append(Ref(ref: Int32(c), level: Int32(level - 1) | inside))
            continue
          }
          let ll = tree.bbox + c * 4
          switch box.relation(minLongitude: ll[0], minLatitude: ll[1], maxLongitude: ll[2], maxLatitude: ll[3]) {
          case .disjoint: continue
          case .inside: stack.append(Ref(ref: Int32(c), level: Int32(level - 1) | inside))
          case .overlapping: stack.append(Ref(ref: Int32(c), level: Int32(level - 1)))
          }
        }
      }
    }
    if hits.count > limit { hits.removeLast(hits.count - limit) }
    return hits
  }

  // MARK: Circles

  public func circlesContaining(longitude: Double, latitude: Double, filter: Filter = .all) -> [Hit]
  {
    hits.removeAll(keepingCapacity: true)
    let q = UnitVector(longitude: longitude, latitude: latitude)
    let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
    let radius = index.sphere.radius
    // A chord is never longer than its arc: (r / R)² bounds the squared chord of radius r.
    @inline(__always) func reach(_ r: Float) -> Double {
      let angle = Double(r) / radius
      return Self.widen(angle * angle)
    }
    index.lock.withReadLock {
      let state = index.state
      let tree = state.tree
      for (i, v) in state.overflow.vectors.enumerated() {
        let item = state.overflow.items[i]
        guard filter.matches(item.attributes), v.chordSquared(to: q) <= reach(item.radius) else {
          continue
        }
        let d = from.distance(longitude: item.longitude, latitude: item.latitude)
        if d <= Double(item.radius) {
          hits.append(Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: d))
        }
      }
      stack.removeAll(keepingCapacity: true)
      pushRoot(tree, filter)
      while let entry = stack.popLast() {
        let g = Int(entry.ref)
        if entry.level == 0 {
          let base = g << PackedTree.shift
          for s in base..<(base + Int(tree.count[g]))
          where filter.matches(tree.attrs[s]) && tree.chordSquared(slot: s, q) <= reach(tree.radius[s]) {
            let lon = tree.lonlat[s * 2]
            let lat = tree.lonlat[s * 2 + 1]
            let d = from.distance(longitude: lon, latitude: lat)
            if d <= Double(tree.radius[s]) {
              hits.append(Hit(id: tree.ids[s], longitude: lon, latitude: lat, distance: d))
            }
          }
          continue
        }
        let level = Int(entry.level)
        for c in tree.children(level: level, index: g - tree.levelStart[level]) {
          guard tree.count[c] > 0, filter.mayMatch(any: tree.anyBits[c], every: tree.everyBits[c]),
            tree.lowerBound(node: c, q) <= reach(tree.maxRadius[c])
          else { continue }
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    return hits
  }

  // MARK: Clusters

  public func clusters(in box: GeoBox, zoom: Int, filter: Filter = .all) -> [Cluster] {
    let grid = ClusterGrid(zoom: zoom)
    let (rows, columns) = grid.cells(covering: box)
    cells.removeAll(keepingCapacity: true)
    @inline(__always) func wanted(_ r: Int, _ c: Int) -> Bool {
      rows.contains(r) && (columns[0].contains(c) || (columns.count > 1 && columns[1].contains(c)))
    }
    @inline(__always) func addItem(_ id: ItemID, _ lon: Double, _ lat: Double) {
      let r = grid.row(latitude: lat)
      let c = grid.column(longitude: lon)
      if wanted(r, c) { cells[r << 32 | c, default: ClusterCell()].add(id: id, longitude: lon, latitude: lat) }
    }
    index.lock.withReadLock {
      let state = index.state
      let tree = state.tree
      for item in state.overflow.items where filter.matches(item.attributes) {
        addItem(item.id, item.longitude, item.latitude)
      }
      stack.removeAll(keepingCapacity: true)
      pushRoot(tree, filter)
      while let entry = stack.popLast() {
        let g = Int(entry.ref)
        let ll = tree.bbox + g * 4
        // The node's cell range: skip it if it misses the viewport's cells; take it whole if it
        // falls in one cell and every item in it matches the filter.
        let rowTop = grid.row(latitude: ll[3])
        let rowBottom = grid.row(latitude: ll[1])
        let colWest = grid.column(longitude: ll[0])
        let colEast = grid.column(longitude: ll[2])
        guard rowBottom >= rows.lowerBound, rowTop <= rows.upperBound,
          columns.contains(where: { colEast >= $0.lowerBound && colWest <= $0.upperBound })
        else { continue }
        let n = Int(tree.count[g])
        if rowTop == rowBottom, colWest == colEast, n >= 2,
          filter.matchesAll(any: tree.anyBits[g], every: tree.everyBits[g])
        {
          cells[rowTop << 32 | colWest, default: ClusterCell()].add(
            count: n, sumLongitude: tree.sums[g * 2], sumLatitude: tree.sums[g * 2 + 1],
            minLongitude: ll[0], minLatitude: ll[1], maxLongitude: ll[2], maxLatitude: ll[3])
          continue
        }
        if entry.level == 0 {
          let base = g << PackedTree.shift
          for s in base..<(base + n) where filter.matches(tree.attrs[s]) {
            addItem(tree.ids[s], tree.lonlat[s * 2], tree.lonlat[s * 2 + 1])
          }
          continue
        }
        let level = Int(entry.level)
        for c in tree.children(level: level, index: g - tree.levelStart[level])
        where tree.count[c] > 0 && filter.mayMatch(any: tree.anyBits[c], every: tree.everyBits[c]) {
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    return cells.keys.sorted().map { key in
      cells[key]!.marker(grid: grid, row: key >> 32, column: key & 0xFFFF_FFFF)
    }
  }
}

extension PackedTree {
  @inline(__always)
  func chordSquared(slot s: Int, _ q: UnitVector) -> Double {
    let p = xyz + s * 3
    let dx = p[0] - q.x
    let dy = p[1] - q.y
    let dz = p[2] - q.z
    return dx * dx + dy * dy + dz * dz
  }

  /// Squared chord distance from `q` to the node's 3-D box: no item under it is nearer.
  @inline(__always)
  func lowerBound(node g: Int, _ q: UnitVector) -> Double {
    let b = box3 + g * 6
    let dx = max(0, max(Double(b[0]) - q.x, q.x - Double(b[3])))
    let dy = max(0, max(Double(b[1]) - q.y, q.y - Double(b[4])))
    let dz = max(0, max(Double(b[2]) - q.z, q.z - Double(b[5])))
    return dx * dx + dy * dy + dz * dz
  }

  /// Starts loading a node's first cache lines before the search reaches it.
  @inline(__always)
  func prefetch(node g: Int, level: Int) {
    if level == 0 {
      cprefetch(xyz + (g << Self.shift) * 3)
    } else {
      cprefetch(box3 + (g - levelStart[level]) * Self.fanout * 6 + levelStart[level - 1] * 6)
    }
  }
}

extension GeoBox {
  enum Relation { case disjoint, overlapping, inside }

  /// How a lon/lat rectangle (not crossing the antimeridian) lies relative to this box.
  @inline(__always)
  func relation(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double)
    -> Relation
  {
    guard maxLatitude >= self.minLatitude, minLatitude <= self.maxLatitude else { return .disjoint }
    let latInside = minLatitude >= self.minLatitude && maxLatitude <= self.maxLatitude
    @inline(__always) func against(_ west: Double, _ east: Double) -> Relation {
      guard maxLongitude >= west, minLongitude <= east else { return .disjoint }
      return latInside && minLongitude >= west && maxLongitude <= east ? .inside : .overlapping
    }
    if !crossesAntimeridian { return against(self.minLongitude, self.maxLongitude) }
    let a = against(self.minLongitude, 180)
    let b = against(-180, self.maxLongitude)
    if a == .inside || b == .inside { return .inside }
    return a == .disjoint && b == .disjoint ? .disjoint : .overlapping
  }
}
