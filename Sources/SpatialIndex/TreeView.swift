import CPUHints
import Geodesy

/// The raw buffers of a `PackedTree`, as a plain struct: what the query loops read, with no
/// reference counting and no exclusivity checks in the way.
struct TreeView {
  let xyz: UnsafeMutablePointer<Double>
  let lonlat: UnsafeMutablePointer<Double>
  let radius: UnsafeMutablePointer<Float>
  let attrs: UnsafeMutablePointer<UInt32>
  let ids: UnsafeMutablePointer<UInt32>
  let box3: UnsafeMutablePointer<Float>
  let bbox: UnsafeMutablePointer<Double>
  let count: UnsafeMutablePointer<UInt32>
  let sums: UnsafeMutablePointer<Int64>
  let maxRadius: UnsafeMutablePointer<Float>
  let anyBits: UnsafeMutablePointer<UInt32>
  let everyBits: UnsafeMutablePointer<UInt32>
  /// Per level: the global index of its first node, and `firstChild - 16 × node` for its nodes.
  let levelStart: UnsafeMutablePointer<Int>
  let childOffset: UnsafeMutablePointer<Int>
  let top: Int

  var root: Int { levelStart[top] }

  /// Global indices of the children of node `g` at `level` ≥ 1.
  @inline(__always)
  func children(of g: Int, level: Int) -> Range<Int> {
    let first = g << PackedTree.shift + childOffset[level]
    return first..<min(first + PackedTree.fanout, levelStart[level])
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
  func lowerBound(node g: Int, _ q: UnitVector) -> Double {
    let b = box3 + g * 6
    let dx = max(0, max(Double(b[0]) - q.x, q.x - Double(b[3])))
    let dy = max(0, max(Double(b[1]) - q.y, q.y - Double(b[4])))
    let dz = max(0, max(Double(b[2]) - q.z, q.z - Double(b[5])))
    return dx * dx + dy * dy + dz * dz
  }

  /// Starts loading what visiting node `g` will read first.
  @inline(__always)
  func prefetch(node g: Int, level: Int) {
    if level == 0 {
      cprefetch(xyz + (g << PackedTree.shift) * 3)
    } else {
      cprefetch(box3 + (g << PackedTree.shift + childOffset[level]) * 6)
    }
  }

  func item(at s: Int) -> Item {
    Item(
      id: ids[s], longitude: lonlat[s * 2], latitude: lonlat[s * 2 + 1], radius: radius[s],
      attributes: attrs[s])
  }
}
