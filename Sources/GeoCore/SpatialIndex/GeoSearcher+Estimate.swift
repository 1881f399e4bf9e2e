import Geodesy

extension GeoSearcher {
  /// Whether more than `limit` items may lie within `radius` metres of the point: an upper
  /// bound from the item counts of the nodes the circle reaches, taken a level at a time while
  /// those nodes are few. Where a search would find few items, a few box tests tell so.
  public func mayFind(
    moreThan limit: Int, longitude: Double, latitude: Double, radius: Double
  ) -> Bool {
    let q = FloatQuery(UnitVector(longitude: longitude, latitude: latitude))
    let bound = Self.widen(index.sphere.chordSquared(forDistance: radius))
    var bounds = SIMD16<Float>()
    var nodes = takeStack()
    defer { stack = nodes }
    return reading { tree, overflow in
      var level = tree.top
      nodes.append(Ref(ref: Int32(tree.root), level: Int32(level)))
      var start = 0
      while true {
        var total = overflow.items.count
        for i in start..<nodes.count { total += Int(tree.count[Int(nodes[i].ref)]) }
        if total <= limit { return false }
        // Past a few hundred nodes the circle covers much of the index: a search that big is
        // large whatever the exact count.
        if level == 0 || nodes.count - start > 256 { return true }
        let end = nodes.count
        for i in start..<end {
          let first = tree.firstChild(of: Int(nodes[i].ref), level: level)
          var lanes = tree.boxes.bounds(group: first, q, limit: bound, into: &bounds)
          while lanes != 0 {
            nodes.append(Ref(ref: Int32(first + lanes.trailingZeroBitCount), level: 0))
            lanes &= lanes - 1
          }
        }
        start = end
        level -= 1
      }
    }
  }
}
