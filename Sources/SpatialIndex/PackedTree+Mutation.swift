/// Changes in place. A change touches one leaf and its ancestors: counts and sums are adjusted
/// up to the root, shapes are recomputed upwards only while they actually change.
extension PackedTree {
  /// Adds an item whose id is not in the tree; `false` when every slot is taken or the id is
  /// beyond the id table.
  func insert(_ item: Item) -> Bool {
    guard Int(item.id) < idCapacity, let leaf = chooseLeaf(longitude: item.longitude, latitude: item.latitude) else {
      return false
    }
    let slot = leaf << Self.shift + Int(count[leaf])
    write(item, to: slot)
    adjust(leaf: leaf, count: 1, longitude: item.longitude, latitude: item.latitude)
    refreshPath(from: leaf)
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

  /// Changes the item in `slot`: in place when it stays inside its leaf's box, else by removing
  /// and inserting it (which cannot fail: the removal frees a slot). Returns whether it moved
  /// to another place in the tree.
  @discardableResult
  func update(slot: Int, to item: Item) -> Bool {
    let leaf = slot >> Self.shift
    let ll = bbox + leaf * 4
    guard item.longitude >= ll[0], item.latitude >= ll[1], item.longitude <= ll[2],
      item.latitude <= ll[3]
    else {
      remove(slot: slot)
      _ = insert(item)
      return true
    }
    adjust(
      leaf: leaf, count: 0, longitude: item.longitude, latitude: item.latitude,
      minusLongitude: lonlat[slot * 2], minusLatitude: lonlat[slot * 2 + 1])
    write(item, to: slot)
    refreshPath(from: leaf)
    return false
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

  /// Recomputes shapes from a leaf upwards, stopping at the first node that did not change.
  private func refreshPath(from leaf: Int) {
    guard refreshLeaf(leaf) else { return }
    var index = leaf >> Self.shift
    for level in 1...max(1, top) where level <= top {
      guard refreshNode(level: level, index: index) else { return }
      index >>= Self.shift
    }
  }

  /// Descends from the root to the leaf with a free slot whose box grows least to take the point.
  private func chooseLeaf(longitude: Double, latitude: Double) -> Int? {
    guard free(level: top, index: 0) > 0 else { return nil }
    var index = 0
    var level = top
    while level > 0 {
      var best = -1
      var bestGrowth = Double.infinity
      var bestSize = Double.infinity
      for c in children(level: level, index: index) {
        let local = c - levelStart[level - 1]
        guard free(level: level - 1, index: local) > 0 else { continue }
        var growth = 1e9
        var size = 0.0
        if count[c] > 0 {
          let ll = bbox + c * 4
          growth =
            max(0, ll[0] - longitude, longitude - ll[2]) + max(0, ll[1] - latitude, latitude - ll[3])
          size = ll[2] - ll[0] + ll[3] - ll[1]
        }
        if growth < bestGrowth || (growth == bestGrowth && size < bestSize) {
          best = local
          bestGrowth = growth
          bestSize = size
        }
      }
      index = best
      level -= 1
    }
    return index
  }
}
