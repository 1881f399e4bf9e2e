import Geodesy
import IndexIntrinsics

/// The raw buffers of a `PackedTree`, as a plain struct: what the query loops read, with no
/// reference counting and no exclusivity checks in the way.
struct TreeView {
  let xyz: UnsafeMutablePointer<Double>
  let lonlat: UnsafeMutablePointer<Double>
  let radius: UnsafeMutablePointer<Float>
  let attrs: UnsafeMutablePointer<UInt32>
  let ids: UnsafeMutablePointer<UInt32>
  let boxes: BoxGroups
  let bbox: UnsafeMutablePointer<Double>
  let count: UnsafeMutablePointer<UInt32>
  let sums: UnsafeMutablePointer<Int64>
  let maxRadius: UnsafeMutablePointer<Float>
  let anyBits: UnsafeMutablePointer<UInt32>
  let everyBits: UnsafeMutablePointer<UInt32>
  /// Per level: the global index of its first node, `firstChild - 16 × node` for its nodes, and
  /// the global index after its last node (padding nodes follow, up to the next multiple of 16).
  let levelStart: UnsafeMutablePointer<Int>
  let childOffset: UnsafeMutablePointer<Int>
  let levelEnd: UnsafeMutablePointer<Int>
  let top: Int

  var root: Int { levelStart[top] }

  /// The first child of node `g` at `level` ≥ 1: the start of its children's box group.
  @inline(__always)
  func firstChild(of g: Int, level: Int) -> Int { g << PackedTree.shift + childOffset[level] }

  /// Global indices of the children of node `g` at `level` ≥ 1.
  @inline(__always)
  func children(of g: Int, level: Int) -> Range<Int> {
    let first = firstChild(of: g, level: level)
    return first..<min(first + PackedTree.fanout, levelEnd[level - 1])
  }

  /// Item slots of leaf `g`.
  @inline(__always)
  func slots(of g: Int) -> Range<Int> {
    let base = g << PackedTree.shift
    return base..<(base + Int(count[g]))
  }

  /// Whether node `g` may hold an item that passes the filter. (An empty node's inverted box
  /// already fails every distance and box test; this check is for the filter.)
  @inline(__always)
  func mayMatch(_ g: Int, _ filter: Filter) -> Bool {
    filter.isAll
      ? count[g] > 0 : filter.mayMatch(any: anyBits[g], every: everyBits[g]) && count[g] > 0
  }

  /// Like `mayMatch`, for searches that bound every node by its box, which for an empty node is
  /// inverted and fails every test.
  @inline(__always)
  func mayMatchBoxed(_ g: Int, _ filter: Filter) -> Bool {
    filter.isAll || filter.mayMatch(any: anyBits[g], every: everyBits[g])
  }

  /// Whether the item in slot `s` passes the filter, without reading its bits when all pass.
  @inline(__always)
  func passes(_ s: Int, _ filter: Filter) -> Bool { filter.isAll || filter.matches(attrs[s]) }

  @inline(__always)
  func chordSquared(slot s: Int, _ q: UnitVector) -> Double {
    let p = xyz + s * 3
    let dx = p[0] - q.x
    let dy = p[1] - q.y
    let dz = p[2] - q.z
    return dx * dx + dy * dy + dz * dz
  }

  /// Squared chord distance from `q` to node `g`'s 3-D box: no item under it is nearer.
  @inline(__always)
  func lowerBound(node g: Int, _ q: UnitVector) -> Double { boxes.lowerBound(node: g, q) }

  /// Starts loading what visiting node `g` will read first.
  @inline(__always)
  func prefetch(node g: Int, level: Int) {
    if level == 0 {
      cprefetch(xyz + (g << PackedTree.shift) * 3)
    } else {
      boxes.prefetch(group: firstChild(of: g, level: level))
    }
  }

  func item(at s: Int) -> Item {
    Item(
      id: ids[s], longitude: lonlat[s * 2], latitude: lonlat[s * 2 + 1], radius: radius[s],
      attributes: attrs[s])
  }
}
