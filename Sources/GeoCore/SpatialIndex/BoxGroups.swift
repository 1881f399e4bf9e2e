import Geodesy
import IndexIntrinsics

/// The nodes' 3-D boxes (Float, rounded outward), stored by group of 16 siblings: a group holds
/// its 16 min x, then its 16 min y, and so on to its 16 max z. A node's children are always one
/// whole group (`PackedTree` starts each level at a multiple of 16), so a search bounds all of
/// them with a few vector instructions instead of 16 scalar bounds.
struct BoxGroups {
  let base: UnsafeMutablePointer<Float>

  init(_ base: UnsafeMutablePointer<Float>) { self.base = base }

  /// One node's box: components 0–2 are its low corner, 3–5 its high corner.
  struct Box {
    let p: UnsafeMutablePointer<Float>

    @inline(__always)
    subscript(component: Int) -> Float {
      get { p[component << PackedTree.shift] }
      nonmutating set { p[component << PackedTree.shift] = newValue }
    }
  }

  @inline(__always)
  subscript(node: Int) -> Box {
    Box(p: base + (node >> PackedTree.shift) * 96 + (node & (PackedTree.fanout - 1)))
  }

  /// An inverted box: every bound to it is infinite.
  func setEmpty(_ node: Int) {
    let b = self[node]
    for c in 0..<3 {
      b[c] = .infinity
      b[c + 3] = -.infinity
    }
  }

  /// The exact squared chord distance from `q` to node `g`'s box, in Double: no item under it
  /// is nearer.
  @inline(__always)
  func lowerBound(node g: Int, _ q: UnitVector) -> Double {
    let b = self[g]
    let dx = max(0, max(Double(b[0]) - q.x, q.x - Double(b[3])))
    let dy = max(0, max(Double(b[1]) - q.y, q.y - Double(b[4])))
    let dz = max(0, max(Double(b[2]) - q.z, q.z - Double(b[5])))
    return dx * dx + dy * dy + dz * dz
  }

  /// Lower bounds on the squared chord from `q` to the nodes of the group that starts at `first`
  /// (a multiple of 16), into `bounds`; returns the nodes within `limit`: bit j for node
  /// `first + j`. Empty and padding nodes get infinity. The bounds are computed in float
  /// (`box16_bounds`) and never exceed the exact ones (`lowerBound(node:_:)`), so they prune
  /// and order a search as safely.
  @inline(__always)
  func bounds(
    group first: Int, _ q: FloatQuery, limit: Double, into bounds: inout SIMD16<Float>
  ) -> Int {
    // The C test is strict.
    let f = up(limit)
    let cap = f < .greatestFiniteMagnitude ? f.nextUp : f
    let boxes = base + (first >> PackedTree.shift) * 96
    return withUnsafeMutableBytes(of: &bounds) { out in
      Int(
        box16_bounds(
          boxes, q.x, q.y, q.z, FloatQuery.slack, FloatQuery.shrink, cap,
          out.baseAddress!.assumingMemoryBound(to: Float.self)))
    }
  }

  /// Starts loading the group that starts at `first`.
  @inline(__always)
  func prefetch(group first: Int) {
    cprefetch(base + (first >> PackedTree.shift) * 96)
  }
}

/// A query point in float, for `BoxGroups.bounds`.
struct FloatQuery {
  let x: Float
  let y: Float
  let z: Float

  /// Subtracted from each axis distance: more than float's rounding of a coordinate in
  /// [-1, 1] (2⁻²⁵) plus that of a difference in [-2, 2] (2⁻²⁴), with room for its own.
  static let slack: Float = 3e-7
  /// 1 − 2⁻²⁰: more than the relative rounding of three squares, two adds and this product.
  static let shrink: Float = 1 - 0x1p-20

  init(_ v: UnitVector) {
    x = Float(v.x)
    y = Float(v.y)
    z = Float(v.z)
  }
}
