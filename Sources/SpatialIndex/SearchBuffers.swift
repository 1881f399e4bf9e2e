/// A reference to a node or an item, as the search queues hold them. `level` ≥ 0 is a node at
/// that level (`ref` its global index); `itemInTree` and `itemInOverflow` are items.
struct Ref {
  static let itemInTree: Int32 = -1
  static let itemInOverflow: Int32 = -2
  var ref: Int32
  var level: Int32
}

/// A min-priority queue of refs by squared chord length, in one buffer reused across queries.
struct MinQueue {
  private(set) var keys = [Double]()
  private(set) var refs = [Ref]()

  var isEmpty: Bool { keys.isEmpty }

  mutating func removeAll() {
    keys.removeAll(keepingCapacity: true)
    refs.removeAll(keepingCapacity: true)
  }

  mutating func push(_ key: Double, _ ref: Ref) {
    var i = keys.count
    keys.append(key)
    refs.append(ref)
    keys.withUnsafeMutableBufferPointer { k in
      refs.withUnsafeMutableBufferPointer { r in
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
    }
  }

  /// Removes and returns the entry with the smallest key.
  mutating func pop() -> (key: Double, ref: Ref) {
    let top = (keys[0], refs[0])
    let lastKey = keys.removeLast()
    let lastRef = refs.removeLast()
    let n = keys.count
    if n > 0 {
      keys.withUnsafeMutableBufferPointer { k in
        refs.withUnsafeMutableBufferPointer { r in
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
        }
      }
    }
    return top
  }

  var minKey: Double { keys[0] }
}

/// The `k` smallest keys seen so far (a max-heap): its top bounds how far a k-nearest search
/// still has to look.
struct KBound {
  private(set) var keys = [Double]()
  var k = 0

  var isFull: Bool { keys.count >= k }
  var top: Double { keys[0] }

  mutating func reset(k: Int) {
    self.k = k
    keys.removeAll(keepingCapacity: true)
  }

  /// Offers a key; returns whether the bound (the k-th smallest) may have dropped.
  mutating func offer(_ key: Double) -> Bool {
    if keys.count < k {
      var i = keys.count
      keys.append(key)
      keys.withUnsafeMutableBufferPointer { h in
        while i > 0 {
          let parent = (i - 1) >> 1
          guard h[parent] < key else { break }
          h[i] = h[parent]
          i = parent
        }
        h[i] = key
      }
      return keys.count == k
    }
    guard key < keys[0] else { return false }
    let n = keys.count
    keys.withUnsafeMutableBufferPointer { h in
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
    }
    return true
  }
}
