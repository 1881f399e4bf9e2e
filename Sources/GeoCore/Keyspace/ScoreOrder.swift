/// The members of one sorted set in Redis's order -- by score, then by member bytes (memcmp,
/// shorter first) -- kept up to date by every write, so that ranks, rank ranges and score
/// ranges cost O(log n + m) instead of a sort after each write (119 ms for 1M members).
///
/// A B+-tree whose inner nodes count each child's members (Redis keeps a skip list with spans
/// beside its hash for the same reads, about 40 bytes a member). A leaf holds (score, slot)
/// pairs, 12 bytes a member, between a quarter and all of its 64 places full: about 18 bytes a
/// member after random inserts, 12 after a load. Ties on score are broken by the names in the
/// set's `MemberTable`, which must hold a slot's name while the slot is here.
///
/// Nodes are raw memory, reached without reference counting; every leaf lies `height` levels
/// below the root. Not thread-safe: reads may run side by side, writes exclude everything (the
/// `Keyspace` lock).
final class ScoreOrder {
  private let names: MemberTable
  private var root = Node.make(inner: false)
  /// Levels of inner nodes above the leaves (0: the root is a leaf).
  private(set) var height = 0
  private(set) var count = 0

  init(names: MemberTable) { self.names = names }

  deinit { free(root, level: height) }

  /// Replaces the contents with `slots`, already in order, each scored by `scores[slot]`. Nodes
  /// are filled (a load takes the least memory; a later insert splits the node it reaches).
  func build(_ slots: [UInt32], scores: [Double]) {
    free(root, level: height)
    count = slots.count
    height = 0
    let fill = Node.capacity
    var level: [Node] = []
    var sizes: [Int] = []
    let leaves = max(1, (slots.count + fill - 1) / fill)
    for i in 0..<leaves {
      let leaf = Node.make(inner: false)
      let range = slots.count * i / leaves..<slots.count * (i + 1) / leaves
      for (at, slot) in slots[range].enumerated() {
        leaf.scores[at] = scores[Int(slot)]
        leaf.slots[at] = slot
      }
      leaf.count = range.count
      level.append(leaf)
      sizes.append(range.count)
    }
    while level.count > 1 {
      let parents = (level.count + fill - 1) / fill
      var above: [Node] = []
      var aboveSizes: [Int] = []
      for i in 0..<parents {
        let node = Node.make(inner: true)
        let range = level.count * i / parents..<level.count * (i + 1) / parents
        for (at, child) in range.enumerated() {
          node.setChild(at, level[child], size: sizes[child])
        }
        node.count = range.count
        above.append(node)
        aboveSizes.append(sizes[range].reduce(0, +))
      }
      level = above
      sizes = aboveSizes
      height += 1
    }
    root = level[0]
  }

  /// Adds a slot (not already here) with its score.
  func insert(_ slot: UInt32, score: Double) {
    if let (right, rightSize) = insert(score, slot, into: root, level: height) {
      let top = Node.make(inner: true)
      top.setChild(0, root, size: count + 1 - rightSize)
      top.setChild(1, right, size: rightSize)
      top.count = 2
      root = top
      height += 1
    }
    count += 1
  }

  /// Removes a slot, which must be here with this score.
  func remove(_ slot: UInt32, score: Double) {
    remove(score, slot, from: root, level: height)
    count -= 1
    while height > 0 && root.count == 1 {
      let child = root.children[0]
      root.deallocate()
      root = child
      height -= 1
    }
  }

  /// How many slots come before this one (which must be here with this score).
  func rank(of slot: UInt32, score: Double) -> Int {
    var node = root
    var rank = 0
    for _ in 0..<height {
      let i = child(for: score, slot, in: node)
      rank += node.total(0..<i)
      node = node.children[i]
    }
    return rank + position(of: score, slot, in: node)
  }

  /// How many slots score below `score`, or at most `score` with `orEqual`.
  func count(below score: Double, orEqual: Bool) -> Int {
    var node = root
    var rank = 0
    for _ in 0..<height {
      let i = max(0, entries(below: score, orEqual: orEqual, in: node) - 1)
      rank += node.total(0..<i)
      node = node.children[i]
    }
    return rank + entries(below: score, orEqual: orEqual, in: node)
  }

  /// Calls `body` with the slot and score at each rank of `ranks` (within `0..<count`), in
  /// order.
  func forEach(_ ranks: Range<Int>, _ body: (UInt32, Double) -> Void) {
    visit(root, level: height, ranks, body)
  }

  private func visit(
    _ node: Node, level: Int, _ ranks: Range<Int>, _ body: (UInt32, Double) -> Void
  ) {
    if level == 0 {
      for i in ranks { body(node.slots[i], node.scores[i]) }
      return
    }
    var start = 0
    for i in 0..<node.count where start < ranks.upperBound {
      let end = start + node.sizes[i]
      if end > ranks.lowerBound {
        let within = max(ranks.lowerBound, start) - start..<min(ranks.upperBound, end) - start
        visit(node.children[i], level: level - 1, within, body)
      }
      start = end
    }
  }

  /// Whether (score a, slot a) sorts before (score b, slot b).
  @inline(__always)
  private func precedes(_ a: Double, _ slotA: UInt32, _ b: Double, _ slotB: UInt32) -> Bool {
    a < b || (a == b && slotA != slotB && names.precedes(slotA, slotB))
  }

  /// In a leaf: how many entries sort before (score, slot).
  private func position(of score: Double, _ slot: UInt32, in leaf: Node) -> Int {
    var low = 0
    var high = leaf.count
    while low < high {
      let mid = (low + high) / 2
      if precedes(leaf.scores[mid], leaf.slots[mid], score, slot) {
        low = mid + 1
      } else {
        high = mid
      }
    }
    return low
  }

  /// In an inner node: the child whose range holds (score, slot), the last whose least entry
  /// does not sort after it (or the first).
  private func child(for score: Double, _ slot: UInt32, in node: Node) -> Int {
    var low = 1
    var high = node.count
    while low < high {
      let mid = (low + high) / 2
      if precedes(score, slot, node.scores[mid], node.slots[mid]) {
        high = mid
      } else {
        low = mid + 1
      }
    }
    return low - 1
  }

  /// How many of a node's entries (least entries of its children, in an inner node) score below
  /// `score`, or at most `score` with `orEqual`.
  private func entries(below score: Double, orEqual: Bool, in node: Node) -> Int {
    var low = 0
    var high = node.count
    while low < high {
      let mid = (low + high) / 2
      if orEqual ? node.scores[mid] <= score : node.scores[mid] < score {
        low = mid + 1
      } else {
        high = mid
      }
    }
    return low
  }

  /// Inserts below `node`; returns the node split off to its right, and the slots under it.
  private func insert(_ score: Double, _ slot: UInt32, into node: Node, level: Int) -> (Node, Int)?
  {
    if level == 0 {
      let (target, at, split) = makeRoom(at: position(of: score, slot, in: node), in: node)
      target.scores[at] = score
      target.slots[at] = slot
      return split.map { ($0, $0.count) }
    }
    let i = child(for: score, slot, in: node)
    node.sizes[i] += 1
    if precedes(score, slot, node.scores[i], node.slots[i]) {
      node.scores[i] = score
      node.slots[i] = slot
    }
    guard let (right, rightSize) = insert(score, slot, into: node.children[i], level: level - 1)
    else { return nil }
    node.sizes[i] -= rightSize
    let (target, at, split) = makeRoom(at: i + 1, in: node, inner: true)
    target.setChild(at, right, size: rightSize)
    return split.map { ($0, $0.total(0..<$0.count)) }
  }

  /// One free place at `at` in `node`, its entries from there on moved up one; a full node is
  /// first split in halves, the upper half returned as `split`. Returns the node and place to
  /// write.
  private func makeRoom(at: Int, in node: Node, inner: Bool = false) -> (Node, Int, split: Node?) {
    var target = node
    var at = at
    var split: Node?
    if node.count == Node.capacity {
      let right = Node.make(inner: inner)
      let half = Node.capacity / 2
      Node.move(from: node, half, to: right, 0, count: Node.capacity - half, inner: inner)
      right.count = Node.capacity - half
      node.count = half
      if at > half {
        target = right
        at -= half
      }
      split = right
    }
    Node.move(from: target, at, to: target, at + 1, count: target.count - at, inner: inner)
    target.count += 1
    return (target, at, split)
  }

  /// Removes below `node`; returns whether `node` is left with fewer than `Node.minimum`.
  @discardableResult
  private func remove(_ score: Double, _ slot: UInt32, from node: Node, level: Int) -> Bool {
    if level == 0 {
      let at = position(of: score, slot, in: node)
      precondition(at < node.count && node.slots[at] == slot, "a member missing from the order")
      Node.move(from: node, at + 1, to: node, at, count: node.count - at - 1, inner: false)
      node.count -= 1
      return node.count < Node.minimum
    }
    let i = child(for: score, slot, in: node)
    node.sizes[i] -= 1
    let child = node.children[i]
    if remove(score, slot, from: child, level: level - 1) {
      rebalance(node, at: i, childLevel: level - 1)
    } else {
      node.scores[i] = child.scores[0]
      node.slots[i] = child.slots[0]
    }
    return node.count < Node.minimum
  }

  /// Child `i` of `parent` has too few entries: merged with a neighbour when both fit in 3/4 of
  /// a node (so the next insert does not split them again), else given half the difference.
  private func rebalance(_ parent: Node, at i: Int, childLevel: Int) {
    let inner = childLevel > 0
    let a = i + 1 < parent.count ? i : i - 1
    let left = parent.children[a]
    let right = parent.children[a + 1]
    if left.count + right.count <= Node.capacity * 3 / 4 {
      Node.move(from: right, 0, to: left, left.count, count: right.count, inner: inner)
      left.count += right.count
      parent.setChild(a, left, size: parent.sizes[a] + parent.sizes[a + 1])
      right.deallocate()
      Node.move(from: parent, a + 2, to: parent, a + 1, count: parent.count - a - 2, inner: true)
      parent.count -= 1
      return
    }
    let moved: Int
    if left.count < right.count {
      let n = (right.count - left.count) / 2
      Node.move(from: right, 0, to: left, left.count, count: n, inner: inner)
      Node.move(from: right, n, to: right, 0, count: right.count - n, inner: inner)
      moved = inner ? left.total(left.count..<left.count + n) : n
      left.count += n
      right.count -= n
    } else {
      let n = (left.count - right.count) / 2
      Node.move(from: right, 0, to: right, n, count: right.count, inner: inner)
      Node.move(from: left, left.count - n, to: right, 0, count: n, inner: inner)
      moved = -(inner ? right.total(0..<n) : n)
      left.count -= n
      right.count += n
    }
    parent.setChild(a, left, size: parent.sizes[a] + moved)
    parent.setChild(a + 1, right, size: parent.sizes[a + 1] - moved)
  }

  private func free(_ node: Node, level: Int) {
    if level > 0 {
      for i in 0..<node.count { free(node.children[i], level: level - 1) }
    }
    node.deallocate()
  }
}

/// A node in raw memory: its entry count, then per entry a score and a slot -- in an inner node,
/// its child's least entry -- and in an inner node also the child's size and address. Leaves
/// and inner nodes share the layout of the first three, so moving entries, and a node's least
/// entry (`scores[0]`, `slots[0]`), work alike for both.
private struct Node {
  static let capacity = 64
  /// A node other than the root with fewer entries is merged or refilled.
  static let minimum = capacity / 4
  private static let scoresAt = 8
  private static let slotsAt = scoresAt + 8 * capacity
  private static let sizesAt = slotsAt + 4 * capacity
  private static let childrenAt = sizesAt + 8 * capacity

  let base: UnsafeMutableRawPointer

  static func make(inner: Bool) -> Node {
    let base = UnsafeMutableRawPointer.allocate(
      byteCount: inner ? childrenAt + 8 * capacity : sizesAt, alignment: 8)
    base.bindMemory(to: Int.self, capacity: 1).initialize(to: 0)
    (base + scoresAt).bindMemory(to: Double.self, capacity: capacity)
    (base + slotsAt).bindMemory(to: UInt32.self, capacity: capacity)
    if inner {
      (base + sizesAt).bindMemory(to: Int.self, capacity: capacity)
      (base + childrenAt).bindMemory(to: Node.self, capacity: capacity)
    }
    return Node(base: base)
  }

  func deallocate() { base.deallocate() }

  var count: Int {
    get { base.assumingMemoryBound(to: Int.self).pointee }
    nonmutating set { base.assumingMemoryBound(to: Int.self).pointee = newValue }
  }

  var scores: UnsafeMutablePointer<Double> {
    (base + Self.scoresAt).assumingMemoryBound(to: Double.self)
  }

  var slots: UnsafeMutablePointer<UInt32> {
    (base + Self.slotsAt).assumingMemoryBound(to: UInt32.self)
  }

  /// Inner nodes only: how many slots each child holds.
  var sizes: UnsafeMutablePointer<Int> {
    (base + Self.sizesAt).assumingMemoryBound(to: Int.self)
  }

  /// Inner nodes only: the slots under the children at `range`.
  func total(_ range: Range<Int>) -> Int {
    var sum = 0
    for i in range { sum += sizes[i] }
    return sum
  }

  /// Inner nodes only.
  var children: UnsafeMutablePointer<Node> {
    (base + Self.childrenAt).assumingMemoryBound(to: Node.self)
  }

  /// Inner nodes only: entry `i` made `child`, holding `size` slots.
  func setChild(_ i: Int, _ child: Node, size: Int) {
    scores[i] = child.scores[0]
    slots[i] = child.slots[0]
    sizes[i] = size
    children[i] = child
  }

  /// Moves `count` entries (overlapping or not; the counts are the caller's to set).
  static func move(from a: Node, _ i: Int, to b: Node, _ j: Int, count: Int, inner: Bool) {
    guard count > 0 else { return }
    (b.scores + j).moveInitialize(from: a.scores + i, count: count)
    (b.slots + j).moveInitialize(from: a.slots + i, count: count)
    if inner {
      (b.sizes + j).moveInitialize(from: a.sizes + i, count: count)
      (b.children + j).moveInitialize(from: a.children + i, count: count)
    }
  }
}
