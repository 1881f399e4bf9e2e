/// Redis 7.0's `pqsort`: the Bentley–McIlroy quicksort (NetBSD's `qsort`, without its switch
/// to insertion sort after a partition that swapped nothing) that skips every partition lying
/// wholly outside `0..<first`, so those first elements end up sorted and the rest in no
/// particular order. GEOSEARCH with COUNT sorts with it, and it is not stable: which of several
/// equal elements come first, and which make the cut, follows its exact steps, so they are
/// taken here one for one. `compare` returns <0, 0 or >0, as C comparators do.
func redisPartialSort<T>(_ a: inout [T], first: Int, by compare: (T, T) -> Int) {
  guard first > 0, a.count > 1 else { return }
  withoutActuallyEscaping(compare) { compare in
    PartialSorter(compare: compare, wanted: 0..<min(first, a.count)).sort(
      &a, base: 0, count: a.count)
  }
}

private struct PartialSorter<T> {
  let compare: (T, T) -> Int
  /// The positions whose elements must end up sorted.
  let wanted: Range<Int>

  func sort(_ a: inout [T], base start: Int, count n: Int) {
    var base = start
    var n = n
    while true {
      if n < 7 { return insertionSort(&a, base, n) }
      var pivot = base + n / 2
      if n > 7 {
        var low = base
        var high = base + n - 1
        if n > 40 {
          let d = n / 8
          low = median(a, low, low + d, low + 2 * d)
          pivot = median(a, pivot - d, pivot, pivot + d)
          high = median(a, high - 2 * d, high - d, high)
        }
        pivot = median(a, low, pivot, high)
      }
      a.swapAt(base, pivot)
      // Equal elements gather at both ends ([base+1, pa) and (pd, end]), then move to the middle.
      var pa = base + 1
      var pb = pa
      var pc = base + n - 1
      var pd = pc
      while true {
        while pb <= pc {
          let order = compare(a[pb], a[base])
          if order > 0 { break }
          if order == 0 {
            a.swapAt(pa, pb)
            pa += 1
          }
          pb += 1
        }
        while pb <= pc {
          let order = compare(a[pc], a[base])
          if order < 0 { break }
          if order == 0 {
            a.swapAt(pc, pd)
            pd -= 1
          }
          pc -= 1
        }
        if pb > pc { break }
        a.swapAt(pb, pc)
        pb += 1
        pc -= 1
      }
      let end = base + n
      var r = min(pa - base, pb - pa)
      swapRuns(&a, base, pb - r, r)
      r = min(pd - pc, end - pd - 1)
      swapRuns(&a, pb, end - r, r)
      r = pb - pa
      if r > 1 && overlapsWanted(base, r) { sort(&a, base: base, count: r) }
      r = pd - pc
      guard r > 1, overlapsWanted(end - r, r) else { return }
      base = end - r
      n = r
    }
  }

  private func overlapsWanted(_ base: Int, _ n: Int) -> Bool {
    wanted.overlaps(base..<base + n)
  }

  private func insertionSort(_ a: inout [T], _ base: Int, _ n: Int) {
    for m in stride(from: base + 1, to: base + n, by: 1) {
      var l = m
      while l > base && compare(a[l - 1], a[l]) > 0 {
        a.swapAt(l, l - 1)
        l -= 1
      }
    }
  }

  private func median(_ a: [T], _ x: Int, _ y: Int, _ z: Int) -> Int {
    compare(a[x], a[y]) < 0
      ? (compare(a[y], a[z]) < 0 ? y : (compare(a[x], a[z]) < 0 ? z : x))
      : (compare(a[y], a[z]) > 0 ? y : (compare(a[x], a[z]) < 0 ? x : z))
  }

  /// Swaps `a[x + i]` and `a[y + i]` for i in 0..<n, in that order (the runs may overlap).
  private func swapRuns(_ a: inout [T], _ x: Int, _ y: Int, _ n: Int) {
    for i in 0..<max(n, 0) { a.swapAt(x + i, y + i) }
  }
}
