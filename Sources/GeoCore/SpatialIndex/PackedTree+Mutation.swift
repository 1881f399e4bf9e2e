import Geodesy

/// Changes in place. A change touches one leaf and its ancestors: counts and sums are adjusted
/// up to the root, shapes are recomputed upwards only while they actually change.
extension PackedTree {
  /// Adds an item whose id is not in the tree; `false` when every slot is taken or the id is
  /// beyond the id table.
  func insert(_ item: Item) -> Bool {
    insert(item, UnitVector(longitude: item.longitude, latitude: item.latitude))
  }

  private func insert(_ item: Item, _ v: UnitVector) -> Bool {
    guard Int(item.id) < idCapacity, let leaf = chooseLeaf(v) else { return false }
    let slot = leaf << Self.shift + Int(count[leaf])
    write(item, v, to: slot)
    adjust(leaf: leaf, count: 1, longitude: item.longitude, latitude: item.latitude)
    extendPath(from: leaf, slot: slot)
    return true
  }

  /// Removes the item in `slot`, moving its leaf's last item into the hole.
  func remove(slot: Int) {
    let leaf = slot >> Self.shift
    let last = leaf << Self.shift + Int(count[leaf]) - 1
    let lon = lonlat[slot * 2]
    let lat = lonlat[slot * 2 + 1]
    slotOf[Int(ids[slot])] = Self.none
    if slot != last {
      xyz[slot * 3] = xyz[last * 3]
      xyz[slot * 3 + 1] = xyz[last * 3 + 1]
      xyz[slot * 3 + 2] = xyz[last * 3 + 2]
      lonlat[slot * 2] = lonlat[last * 2]
      lonlat[slot * 2 + 1] = lonlat[last * 2 + 1]
      radius[slot] = radius[last]
      attrs[slot] = attrs[last]
      ids[slot] = ids[last]
      slotOf[Int(ids[slot])] = UInt32(slot)
    }
    ids[last] = Self.none
    adjust(leaf: leaf, count: -1, longitude: -lon, latitude: -lat)
    refreshPath(from: leaf)
  }

  /// Changes the item in `slot`. A move that stays near its leaf (inside the leaf's box grown by
  /// half its size, the usual small move) is made in place, growing the box if need be; a longer
  /// one removes the item and inserts it where it now belongs (which cannot fail: the removal
  /// freed a slot). Returns whether the tree loosened: the box grew or the item moved elsewhere.
  @discardableResult
  func update(slot: Int, to item: Item) -> Bool {
    let leaf = slot >> Self.shift
    let ll = bbox + leaf * 4
    let v = UnitVector(longitude: item.longitude, latitude: item.latitude)
    let inside =
      item.longitude >= ll[0] && item.latitude >= ll[1] && item.longitude <= ll[2]
      && item.latitude <= ll[3]
    if !inside {
      let slackLon = (ll[2] - ll[0]) / 2
      let slackLat = (ll[3] - ll[1]) / 2
      let near =
        item.longitude >= ll[0] - slackLon && item.latitude >= ll[1] - slackLat
        && item.longitude <= ll[2] + slackLon && item.latitude <= ll[3] + slackLat
      guard near else {
        remove(slot: slot)
        _ = insert(item, v)
        return true
      }
    }
    // When both the old and the new position lie strictly inside the leaf's boxes and nothing
    // else about the item changes, the leaf's shape cannot change: skip recomputing it.
    let unchangedShape =
      inside && item.radius == radius[slot] && item.attributes == attrs[slot]
      && (item.radius == 0 || item.radius < maxRadius[leaf])
      && strictlyInside(slot: slot, leaf: leaf)
      && inside3D(v, leaf: leaf)
    adjust(
      leaf: leaf, count: 0, longitude: item.longitude, latitude: item.latitude,
      minusLongitude: lonlat[slot * 2], minusLatitude: lonlat[slot * 2 + 1])
    write(item, v, to: slot)
    if !unchangedShape { refreshPath(from: leaf) }
    return !inside
  }

  /// Whether the item in `slot` lies strictly inside its leaf's boxes, so removing it from
  /// there leaves them as they are.
  private func strictlyInside(slot s: Int, leaf: Int) -> Bool {
    let ll = bbox + leaf * 4
    let b = view.boxes[leaf]
    let lon = lonlat[s * 2]
    let lat = lonlat[s * 2 + 1]
    return lon > ll[0] && lat > ll[1] && lon < ll[2] && lat < ll[3]
      && down(xyz[s * 3]) > b[0] && down(xyz[s * 3 + 1]) > b[1] && down(xyz[s * 3 + 2]) > b[2]
      && up(xyz[s * 3]) < b[3] && up(xyz[s * 3 + 1]) < b[4] && up(xyz[s * 3 + 2]) < b[5]
  }

  /// Whether a unit vector lies inside a leaf's 3-D box as the box rounds it.
  private func inside3D(_ v: UnitVector, leaf: Int) -> Bool {
    let b = view.boxes[leaf]
    return down(v.x) >= b[0] && down(v.y) >= b[1] && down(v.z) >= b[2] && up(v.x) <= b[3]
      && up(v.y) <= b[4] && up(v.z) <= b[5]
  }

  /// Adds `count` and the fixed-point coordinate deltas to a leaf and all its ancestors.
  private func adjust(
    leaf: Int, count delta: Int, longitude: Double, latitude: Double,
    minusLongitude: Double = 0, minusLatitude: Double = 0
  ) {
    let dx = FixedPoint.encode(longitude) - FixedPoint.encode(minusLongitude)
    let dy = FixedPoint.encode(latitude) - FixedPoint.encode(minusLatitude)
    var index = leaf
    for level in 0...top {
      let g = levelStart[level] + index
      count[g] = UInt32(Int(count[g]) + delta)
      sums[g * 2] &+= dx
      sums[g * 2 + 1] &+= dy
      index >>= Self.shift
    }
  }

  /// Grows a new item's leaf and its ancestors to take it in, stopping where nothing changes.
  private func extendPath(from leaf: Int, slot s: Int) {
    let lo = (down(xyz[s * 3]), down(xyz[s * 3 + 1]), down(xyz[s * 3 + 2]))
    let hi = (up(xyz[s * 3]), up(xyz[s * 3 + 1]), up(xyz[s * 3 + 2]))
    let lon = lonlat[s * 2]
    let lat = lonlat[s * 2 + 1]
    var index = leaf
    for level in 0...top {
      let g = levelStart[level] + index
      let b = view.boxes[g]
      let ll = bbox + g * 4
      let grows =
        lo.0 < b[0] || lo.1 < b[1] || lo.2 < b[2] || hi.0 > b[3] || hi.1 > b[4] || hi.2 > b[5]
        || lon < ll[0] || lat < ll[1] || lon > ll[2] || lat > ll[3] || radius[s] > maxRadius[g]
        || attrs[s] & ~anyBits[g] != 0 || everyBits[g] & ~attrs[s] != 0
      guard grows else { return }
      b[0] = min(b[0], lo.0)
      b[1] = min(b[1], lo.1)
      b[2] = min(b[2], lo.2)
      b[3] = max(b[3], hi.0)
      b[4] = max(b[4], hi.1)
      b[5] = max(b[5], hi.2)
      ll[0] = min(ll[0], lon)
      ll[1] = min(ll[1], lat)
      ll[2] = max(ll[2], lon)
      ll[3] = max(ll[3], lat)
      maxRadius[g] = max(maxRadius[g], radius[s])
      anyBits[g] |= attrs[s]
      everyBits[g] &= attrs[s]
      index >>= Self.shift
    }
  }

  /// Recomputes shapes from a leaf upwards, stopping at the first node that did not change.
  private func refreshPath(from leaf: Int) {
    guard refreshLeaf(leaf) else { return }
    var index = leaf >> Self.shift
    for level in 1...max(1, top) where level <= top {
      guard refreshNode(level: level, index: index) else { return }
      index >>= Self.shift
    }
  }

  /// The leaf with a free slot whose box is nearest the point, on the same exact 3-D bounds the
  /// searches use, so items land among their neighbours across the antimeridian and at the
  /// poles alike. A greedy dive finds it at once when a leaf holds the point (the usual case for
  /// a move); otherwise a best-first search bounded by the dive's answer finds the nearest.
  private func chooseLeaf(_ q: UnitVector) -> Int? {
    guard free(level: top, index: 0) > 0 else { return nil }
    var g = rootNode
    for level in stride(from: top, to: 0, by: -1) {
      var best = -1
      var bestBound = Double.infinity
      for c in view.children(of: g, level: level)
      where free(level: level - 1, index: c - levelStart[level - 1]) > 0 {
        let lb = view.lowerBound(node: c, q)
        if best < 0 || lb < bestBound {
          best = c
          bestBound = lb
        }
      }
      g = best
    }
    let dive = view.lowerBound(node: g, q)
    if dive == 0 { return g }

    var queue = insertQueue
    defer { insertQueue = queue }
    queue.removeAll()
    queue.push(0, Ref(ref: Int32(rootNode), level: Int32(top)))
    while !queue.isEmpty {
      let (key, entry) = queue.pop()
      if key >= dive { break }
      let node = Int(entry.ref)
      let level = Int(entry.level)
      if level == 0 { return node }
      for c in view.children(of: node, level: level)
      where free(level: level - 1, index: c - levelStart[level - 1]) > 0 {
        let lb = view.lowerBound(node: c, q)
        if lb < dive { queue.push(lb, Ref(ref: Int32(c), level: entry.level - 1)) }
      }
    }
    return g
  }
}
