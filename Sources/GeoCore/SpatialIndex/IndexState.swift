import Geodesy

/// Items that found no free slot in the tree; queries scan them until the next rebuild takes
/// them in. Empty in steady state.
struct Overflow {
  var items = [Item]()
  var vectors = [UnitVector]()
  var position = [ItemID: Int]()

  var isEmpty: Bool { items.isEmpty }

  /// The items and vectors in place. Read through the state's pointer, the arrays themselves
  /// would be copied, and their shared buffers retained and released on every query.
  var view: OverflowView {
    OverflowView(
      items: UnsafeBufferPointer(start: items._baseAddressIfContiguous, count: items.count),
      vectors: UnsafeBufferPointer(start: vectors._baseAddressIfContiguous, count: vectors.count))
  }

  mutating func upsert(_ item: Item) {
    let v = UnitVector(longitude: item.longitude, latitude: item.latitude)
    if let i = position[item.id] {
      items[i] = item
      vectors[i] = v
    } else {
      position[item.id] = items.count
      items.append(item)
      vectors.append(v)
    }
  }

  mutating func remove(id: ItemID) -> Bool {
    guard let i = position.removeValue(forKey: id) else { return false }
    let last = items.count - 1
    if i != last {
      items[i] = items[last]
      vectors[i] = vectors[last]
      position[items[i].id] = i
    }
    items.removeLast()
    vectors.removeLast()
    return true
  }
}

/// The overflow's items and their vectors in place, for a query under the read lock.
struct OverflowView {
  let items: UnsafeBufferPointer<Item>
  let vectors: UnsafeBufferPointer<UnitVector>
}

/// The tree plus its overflow: everything a query reads. Single-threaded; `GeoIndex` guards it.
struct IndexState {
  var tree: PackedTree
  var overflow = Overflow()
  /// Changes since the tree was built that may have loosened it (inserts, removals, relocations).
  var wear = 0

  var count: Int { tree.liveCount + overflow.items.count }

  /// Inserts or changes an item; returns whether it is new.
  mutating func upsert(_ item: Item) -> Bool {
    if let slot = tree.slot(of: item.id) {
      if tree.update(slot: slot, to: item) { wear += 1 }
      return false
    }
    if overflow.position[item.id] != nil {
      overflow.upsert(item)
      return false
    }
    wear += 1
    if !tree.insert(item) { overflow.upsert(item) }
    return true
  }

  mutating func remove(id: ItemID) -> Bool {
    if let slot = tree.slot(of: id) {
      tree.remove(slot: slot)
      wear += 1
      return true
    }
    return overflow.remove(id: id)
  }

  func item(id: ItemID) -> Item? {
    if let slot = tree.slot(of: id) { return tree.item(at: slot) }
    return overflow.position[id].map { overflow.items[$0] }
  }

  func allItems() -> [Item] { tree.allItems() + overflow.items }
}
