import Geodesy

/// A Hilbert-packed R-tree (flatbush's layout) that can be changed in place.
///
/// Items live in leaf slots, 16 to a leaf, packed at the front of their leaf; every leaf is built
/// with at least one free slot so inserts and moves find room nearby. Nodes are stored level by
/// level in flat arrays and their children are found by arithmetic, not pointers. Each level starts
/// at a multiple of 16, so that the children of a node are one aligned group of 16 (the last
/// group of a level padded with empty nodes). Each node keeps
/// a 3-D box over its items' unit vectors (Float, rounded outward: exact lower bounds for
/// great-circle search), a longitude/latitude box (Double, always tight, for viewports and
/// clustering), the count and fixed-point coordinate sums of its items (clustering), their largest
/// radius (circles) and the OR and AND of their attribute bits (filters).
///
/// Not thread-safe: `GeoIndex` serialises writers and lets readers in only between writes.
final class PackedTree: @unchecked Sendable {
  static let fanout = 16
  static let shift = 4
  /// `ids` value of an empty slot, and `slotOf` value of an id that has no slot.
  static let none = UInt32.max

  let leafCount: Int
  let slotCapacity: Int
  /// Global index of each level's first node (a multiple of 16); level 0 holds the leaves, the
  /// last level the root.
  let levelStart: [Int]
  let levelSize: [Int]
  let nodeCount: Int
  var top: Int { levelStart.count - 1 }
  var rootNode: Int { levelStart[top] }

  // Items, by slot.
  let xyz: UnsafeMutablePointer<Double>
  let lonlat: UnsafeMutablePointer<Double>
  let radius: UnsafeMutablePointer<Float>
  let attrs: UnsafeMutablePointer<UInt32>
  let ids: UnsafeMutablePointer<UInt32>

  // Nodes, by global node index.
  /// 3-D boxes, by group of 16 siblings: each group holds its 16 min x, then 16 min y, … then
  /// 16 max z (`BoxGroups`), so that a search bounds all the children of a node at once.
  let box3: UnsafeMutablePointer<Float>
  let bbox: UnsafeMutablePointer<Double>
  let count: UnsafeMutablePointer<UInt32>
  let sums: UnsafeMutablePointer<Int64>
  let maxRadius: UnsafeMutablePointer<Float>
  let anyBits: UnsafeMutablePointer<UInt32>
  let everyBits: UnsafeMutablePointer<UInt32>

  /// The same buffers as a plain struct, for the query loops.
  let view: TreeView
  private let levelTable: UnsafeMutablePointer<Int>

  /// Slot of each id, `none` when the id is not in this tree. Fixed size like everything else
  /// here: an id beyond it waits in the overflow for the next rebuild.
  let slotOf: UnsafeMutablePointer<UInt32>
  let idCapacity: Int
  /// Scratch for choosing where inserts go.
  var insertQueue = MinQueue()
  var liveCount: Int { Int(count[rootNode]) }

  /// Builds the tree over `items` (ids unique), `fill` items to a leaf at most (1...15).
  init(items: [Item], fill: Int = 15) {
    precondition((1...15).contains(fill))
    let n = items.count
    leafCount = max(1, (n + fill - 1) / fill)
    slotCapacity = leafCount << Self.shift
    var sizes = [leafCount]
    while sizes.last! > 1 { sizes.append((sizes.last! + Self.fanout - 1) >> Self.shift) }
    var starts = [Int]()
    var total = 0
    for s in sizes {
      starts.append(total)
      total = (total + s + Self.fanout - 1) & ~(Self.fanout - 1)
    }
    levelSize = sizes
    levelStart = starts
    nodeCount = total

    xyz = .allocate(capacity: slotCapacity * 3)
    lonlat = .allocate(capacity: slotCapacity * 2)
    radius = .allocate(capacity: slotCapacity)
    attrs = .allocate(capacity: slotCapacity)
    ids = .allocate(capacity: slotCapacity)
    ids.initialize(repeating: Self.none, count: slotCapacity)
    // Padding nodes stay empty: inverted boxes fail every bound.
    box3 = .allocate(capacity: nodeCount * 6)
    for g in 0..<nodeCount { BoxGroups(box3).setEmpty(g) }
    bbox = .allocate(capacity: nodeCount * 4)
    count = .allocate(capacity: nodeCount)
    count.initialize(repeating: 0, count: nodeCount)
    sums = .allocate(capacity: nodeCount * 2)
    maxRadius = .allocate(capacity: nodeCount)
    anyBits = .allocate(capacity: nodeCount)
    everyBits = .allocate(capacity: nodeCount)
    levelTable = .allocate(capacity: sizes.count * 3)
    for level in 0..<sizes.count {
      levelTable[level] = starts[level]
      levelTable[sizes.count + level] =
        level == 0 ? 0 : starts[level - 1] - (starts[level] << Self.shift)
      levelTable[2 * sizes.count + level] = starts[level] + sizes[level]
    }
    view = TreeView(
      xyz: xyz, lonlat: lonlat, radius: radius, attrs: attrs, ids: ids,
      boxes: BoxGroups(box3), bbox: bbox, count: count, sums: sums, maxRadius: maxRadius,
      anyBits: anyBits, everyBits: everyBits, levelStart: levelTable,
      childOffset: levelTable + sizes.count, levelEnd: levelTable + 2 * sizes.count,
      top: sizes.count - 1)

    var maxID = -1
    for item in items { maxID = max(maxID, Int(item.id)) }
    idCapacity = (maxID + 1) + (maxID + 1) / 4 + 1024
    slotOf = .allocate(capacity: idCapacity)
    slotOf.initialize(repeating: Self.none, count: idCapacity)

    // Hilbert order, then spread evenly over the leaves so each keeps free slots.
    // Sort keys: the Hilbert position's high bits, then the item's index in the low bits.
    let indexBits = max(1, Int.bitWidth - max(1, n - 1).leadingZeroBitCount)
    let indexMask = UInt64(1) << indexBits - 1
    var order = [UInt64](repeating: 0, count: n)
    for i in 0..<n {
      let h = hilbertIndex(longitude: items[i].longitude, latitude: items[i].latitude)
      order[i] = (h >> indexBits) << indexBits | UInt64(i)
    }
    radixSort(&order)
    for leaf in 0..<leafCount {
      let from = leaf * n / leafCount
      let to = (leaf + 1) * n / leafCount
      for (k, o) in (from..<to).enumerated() {
        write(items[Int(order[o] & indexMask)], to: leaf << Self.shift + k)
      }
      count[leaf] = UInt32(to - from)
    }
    for leaf in 0..<leafCount {
      refreshLeaf(leaf)
      var sx: Int64 = 0
      var sy: Int64 = 0
      let base = leaf << Self.shift
      for s in base..<(base + Int(count[leaf])) {
        sx += FixedPoint.encode(lonlat[s * 2])
        sy += FixedPoint.encode(lonlat[s * 2 + 1])
      }
      sums[leaf * 2] = sx
      sums[leaf * 2 + 1] = sy
    }
    for level in 1..<levelSize.count {
      for i in 0..<levelSize[level] {
        let g = levelStart[level] + i
        count[g] = 0
        for c in view.children(of: g, level: level) { count[g] += count[c] }
        _ = refreshNode(level: level, index: i)
      }
    }
  }

  deinit {
    xyz.deallocate()
    lonlat.deallocate()
    radius.deallocate()
    attrs.deallocate()
    ids.deallocate()
    box3.deallocate()
    bbox.deallocate()
    count.deallocate()
    sums.deallocate()
    maxRadius.deallocate()
    anyBits.deallocate()
    everyBits.deallocate()
    levelTable.deallocate()
    slotOf.deallocate()
    insertQueue.free()
  }

  /// Bytes held, for the memory figures.
  var footprint: Int {
    slotCapacity * (5 * 8 + 4 + 4 + 4) + nodeCount * (6 * 4 + 4 * 8 + 4 + 16 + 4 + 8)
      + idCapacity * 4
  }

  // MARK: Layout

  /// How many item slots lie under a node.
  @inline(__always)
  func capacity(level: Int, index: Int) -> Int {
    let span = Self.fanout << (level << 2)
    return min(span, slotCapacity - index * span)
  }

  @inline(__always)
  func free(level: Int, index: Int) -> Int {
    capacity(level: level, index: index) - Int(count[levelStart[level] + index])
  }

  // MARK: Items

  func write(_ item: Item, to slot: Int) {
    write(item, UnitVector(longitude: item.longitude, latitude: item.latitude), to: slot)
  }

  func write(_ item: Item, _ v: UnitVector, to slot: Int) {
    xyz[slot * 3] = v.x
    xyz[slot * 3 + 1] = v.y
    xyz[slot * 3 + 2] = v.z
    lonlat[slot * 2] = item.longitude
    lonlat[slot * 2 + 1] = item.latitude
    radius[slot] = item.radius
    attrs[slot] = item.attributes
    ids[slot] = item.id
    slotOf[Int(item.id)] = UInt32(truncatingIfNeeded: slot)
  }

  func slot(of id: ItemID) -> Int? {
    let i = Int(id)
    guard i < idCapacity, slotOf[i] != Self.none else { return nil }
    return Int(slotOf[i])
  }

  func item(at slot: Int) -> Item {
    Item(
      id: ids[slot], longitude: lonlat[slot * 2], latitude: lonlat[slot * 2 + 1],
      radius: radius[slot], attributes: attrs[slot])
  }

  /// Every item, in slot order.
  func allItems() -> [Item] {
    var out = [Item]()
    out.reserveCapacity(liveCount)
    for leaf in 0..<leafCount {
      let base = leaf << Self.shift
      for s in base..<(base + Int(count[leaf])) { out.append(item(at: s)) }
    }
    return out
  }

  // MARK: Aggregates

  /// Recomputes a leaf's shape from its items; returns whether it changed. (Sums are kept by
  /// the changes themselves.)
  @discardableResult
  func refreshLeaf(_ leaf: Int) -> Bool {
    var lo = (Double.infinity, Double.infinity, Double.infinity)
    var hi = (-Double.infinity, -Double.infinity, -Double.infinity)
    var minLon = Double.infinity
    var minLat = Double.infinity
    var maxLon = -Double.infinity
    var maxLat = -Double.infinity
    var r: Float = 0
    var any: UInt32 = 0
    var every: UInt32 = ~0
    let base = leaf << Self.shift
    for s in base..<(base + Int(count[leaf])) {
      let x = xyz[s * 3]
      let y = xyz[s * 3 + 1]
      let z = xyz[s * 3 + 2]
      lo = (min(lo.0, x), min(lo.1, y), min(lo.2, z))
      hi = (max(hi.0, x), max(hi.1, y), max(hi.2, z))
      let lon = lonlat[s * 2]
      let lat = lonlat[s * 2 + 1]
      minLon = min(minLon, lon)
      maxLon = max(maxLon, lon)
      minLat = min(minLat, lat)
      maxLat = max(maxLat, lat)
      r = max(r, radius[s])
      any |= attrs[s]
      every &= attrs[s]
    }
    return setShape(
      leaf, lo: (down(lo.0), down(lo.1), down(lo.2)), hi: (up(hi.0), up(hi.1), up(hi.2)),
      lonLat: (minLon, minLat, maxLon, maxLat), radius: r, any: any, every: every)
  }

  /// Recomputes an inner node's shape from its children; returns whether it changed.
  @discardableResult
  func refreshNode(level: Int, index: Int) -> Bool {
    var lo = (Float.infinity, Float.infinity, Float.infinity)
    var hi = (-Float.infinity, -Float.infinity, -Float.infinity)
    var minLon = Double.infinity
    var minLat = Double.infinity
    var maxLon = -Double.infinity
    var maxLat = -Double.infinity
    var sx: Int64 = 0
    var sy: Int64 = 0
    var r: Float = 0
    var any: UInt32 = 0
    var every: UInt32 = ~0
    for c in view.children(of: levelStart[level] + index, level: level) where count[c] > 0 {
      let b = view.boxes[c]
      lo = (min(lo.0, b[0]), min(lo.1, b[1]), min(lo.2, b[2]))
      hi = (max(hi.0, b[3]), max(hi.1, b[4]), max(hi.2, b[5]))
      let ll = bbox + c * 4
      minLon = min(minLon, ll[0])
      minLat = min(minLat, ll[1])
      maxLon = max(maxLon, ll[2])
      maxLat = max(maxLat, ll[3])
      sx += sums[c * 2]
      sy += sums[c * 2 + 1]
      r = max(r, maxRadius[c])
      any |= anyBits[c]
      every &= everyBits[c]
    }
    let g = levelStart[level] + index
    sums[g * 2] = sx
    sums[g * 2 + 1] = sy
    return setShape(
      g, lo: lo, hi: hi, lonLat: (minLon, minLat, maxLon, maxLat), radius: r, any: any,
      every: every)
  }

  private func setShape(
    _ g: Int, lo: (Float, Float, Float), hi: (Float, Float, Float),
    lonLat: (Double, Double, Double, Double), radius r: Float, any: UInt32, every: UInt32
  ) -> Bool {
    let b = view.boxes[g]
    let ll = bbox + g * 4
    let changed =
      b[0] != lo.0 || b[1] != lo.1 || b[2] != lo.2 || b[3] != hi.0 || b[4] != hi.1
      || b[5] != hi.2 || ll[0] != lonLat.0 || ll[1] != lonLat.1 || ll[2] != lonLat.2
      || ll[3] != lonLat.3 || maxRadius[g] != r || anyBits[g] != any || everyBits[g] != every
    b[0] = lo.0
    b[1] = lo.1
    b[2] = lo.2
    b[3] = hi.0
    b[4] = hi.1
    b[5] = hi.2
    ll[0] = lonLat.0
    ll[1] = lonLat.1
    ll[2] = lonLat.2
    ll[3] = lonLat.3
    maxRadius[g] = r
    anyBits[g] = any
    everyBits[g] = every
    return changed
  }
}

/// Rounds a coordinate of a box's low corner down to Float, so the Float box still holds it.
@inline(__always)
func down(_ v: Double) -> Float {
  let f = Float(v)
  return Double(f) > v ? f.nextDown : f
}

/// Rounds a coordinate of a box's high corner up to Float.
@inline(__always)
func up(_ v: Double) -> Float {
  let f = Float(v)
  return Double(f) < v ? f.nextUp : f
}
