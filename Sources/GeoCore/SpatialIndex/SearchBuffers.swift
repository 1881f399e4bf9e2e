/// A reference to a node or an item, as the search queues hold them. `level` ≥ 0 is a node at
/// that level (`ref` its global index); `itemInTree` and `itemInOverflow` are items.
struct Ref {
  static let itemInTree: Int32 = -1
  static let itemInOverflow: Int32 = -2
  var ref: Int32
  var level: Int32
}

/// A growable buffer of plain values that its owner frees: the search scratch space, kept across
/// queries and used without reference counting or uniqueness checks.
struct ScratchBuffer<Element: BitwiseCopyable> {
  private(set) var base: UnsafeMutablePointer<Element>
  private(set) var capacity: Int
  var count = 0

  init(capacity: Int = 256) {
    base = .allocate(capacity: capacity)
    self.capacity = capacity
  }

  func free() { base.deallocate() }

  @inline(__always)
  subscript(i: Int) -> Element {
    get { base[i] }
    nonmutating set { base[i] = newValue }
  }

  @inline(__always)
  mutating func append(_ e: Element) {
    if count == capacity { grow() }
    base[count] = e
    count += 1
  }

  @inline(__always)
  mutating func popLast() -> Element? {
    guard count > 0 else { return nil }
    count -= 1
    return base[count]
  }

  /// Makes room for one more element, keeping the contents.
  mutating func grow() {
    let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
    bigger.moveInitialize(from: base, count: count)
    base.deallocate()
    base = bigger
    capacity *= 2
  }
}

/// A min-priority queue of refs keyed by squared chord length.
struct MinQueue {
  var keys = ScratchBuffer<Double>()
  var refs = ScratchBuffer<Ref>()

  func free() {
    keys.free()
    refs.free()
  }

  var isEmpty: Bool { keys.count == 0 }

  mutating func removeAll() {
    keys.count = 0
    refs.count = 0
  }

  @inline(__always)
  mutating func push(_ key: Double, _ ref: Ref) {
    if keys.count == keys.capacity {
      keys.grow()
      refs.grow()
    }
    var i = keys.count
    keys.count += 1
    refs.count += 1
    let k = keys.base
    let r = refs.base
    while i > 0 {
      let parent = (i - 1) >> 1
      guard k[parent] > key else { break }
      k[i] = k[parent]
      r[i] = r[parent]
      i = parent
    }
    k[i] = key
    r[i] = ref
  }

  /// Keeps an entry past the heap's end without ordering it (`count` of them so far), for
  /// `queueSetAside` to queue later. Only while the heap is empty.
  @inline(__always)
  mutating func setAside(_ key: Double, _ ref: Ref, at count: inout Int) {
    while count >= keys.capacity {
      keys.count = count
      refs.count = count
      keys.grow()
      refs.grow()
      keys.count = 0
      refs.count = 0
    }
    keys.base[count] = key
    refs.base[count] = ref
    count += 1
  }

  /// Queues the `count` entries set aside whose key is at most `bound`.
  mutating func queueSetAside(_ count: Int, within bound: Double) {
    precondition(isEmpty)
    var kept = 0
    for i in 0..<count where keys.base[i] <= bound {
      keys.base[kept] = keys.base[i]
      refs.base[kept] = refs.base[i]
      kept += 1
    }
    // Heapify the kept entries.
    let set = (keys.base, refs.base)
    keys.count = 0
    refs.count = 0
    for i in 0..<kept { push(set.0[i], set.1[i]) }
  }

  /// Removes and returns the entry with the smallest key.
  @inline(__always)
  mutating func pop() -> (key: Double, ref: Ref) {
    let k = keys.base
    let r = refs.base
    let top = (k[0], r[0])
    keys.count -= 1
    refs.count -= 1
    let n = keys.count
    guard n > 0 else { return top }
    let lastKey = k[n]
    let lastRef = r[n]
    var i = 0
    while true {
      var child = 2 * i + 1
      if child >= n { break }
      if child + 1 < n && k[child + 1] < k[child] { child += 1 }
      guard k[child] < lastKey else { break }
      k[i] = k[child]
      r[i] = r[child]
      i = child
    }
    k[i] = lastKey
    r[i] = lastRef
    return top
  }
}

/// The `k` smallest keys seen so far (a max-heap): its top bounds how far a k-nearest search
/// still has to look.
struct KBound {
  var keys = ScratchBuffer<Double>()
  var k = 0

  func free() { keys.free() }

  var isFull: Bool { keys.count >= k }
  var top: Double { keys[0] }

  mutating func reset(k: Int) {
    self.k = k
    keys.count = 0
  }

  /// Offers a key; returns whether the bound (the k-th smallest) may have dropped.
  @inline(__always)
  mutating func offer(_ key: Double) -> Bool {
    if keys.count < k {
      var i = keys.count
      keys.append(key)
      let h = keys.base
      while i > 0 {
        let parent = (i - 1) >> 1
        guard h[parent] < key else { break }
        h[i] = h[parent]
        i = parent
      }
      h[i] = key
      return keys.count == k
    }
    let h = keys.base
    guard key < h[0] else { return false }
    let n = keys.count
    var i = 0
    while true {
      var child = 2 * i + 1
      if child >= n { break }
      if child + 1 < n && h[child + 1] > h[child] { child += 1 }
      guard h[child] > key else { break }
      h[i] = h[child]
      i = child
    }
    h[i] = key
    return true
  }
}
