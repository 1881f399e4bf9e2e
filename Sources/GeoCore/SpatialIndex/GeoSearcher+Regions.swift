import Geodesy

/// Queries that collect everything in a region: a circle around a point, a viewport, and the
/// items whose own circle holds a point.
extension GeoSearcher {
  public func radius(
    longitude: Double, latitude: Double, radius: Double, filter: Filter = .all
  ) -> [Hit] {
    var out = takeHits()
    guard radius >= 0 else { return give(out) }
    let q = UnitVector(longitude: longitude, latitude: latitude)
    let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
    let limit = Self.widen(index.sphere.chordSquared(forDistance: radius))
    let qf = FloatQuery(q)
    var bounds = SIMD16<Float>()
    var stack = takeStack()
    reading { tree, overflow in
      for i in overflow.items.indices {
        let item = overflow.items[i]
        guard filter.matches(item.attributes), overflow.vectors[i].chordSquared(to: q) <= limit
        else { continue }
        let d = from.distance(longitude: item.longitude, latitude: item.latitude)
        if d <= radius {
          out.append(
            Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: d))
        }
      }
      Self.pushRoot(tree, filter, onto: &stack)
      while let entry = stack.popLast() {
        let g = Int(entry.ref)
        if entry.level == 0 {
          for s in tree.slots(of: g)
          where tree.passes(s, filter) && tree.chordSquared(slot: s, q) <= limit {
            let lon = tree.lonlat[s * 2]
            let lat = tree.lonlat[s * 2 + 1]
            let d = from.distance(longitude: lon, latitude: lat)
            if d <= radius {
              out.append(Hit(id: tree.ids[s], longitude: lon, latitude: lat, distance: d))
            }
          }
          continue
        }
        let level = Int(entry.level)
        let first = tree.firstChild(of: g, level: level)
        var lanes = tree.boxes.bounds(group: first, qf, limit: limit, into: &bounds)
        while lanes != 0 {
          let c = first + lanes.trailingZeroBitCount
          lanes &= lanes - 1
          guard tree.mayMatchBoxed(c, filter) else { continue }
          tree.prefetch(node: c, level: level - 1)
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    self.stack = stack
    return give(out)
  }

  /// Redis's BYBOX around a point, `width` × `height` metres: the candidates within the
  /// half-diagonal, then those whose latitude distance is within half the height and whose
  /// longitude distance (at the item's latitude) is within half the width.
  public func rectangle(
    longitude: Double, latitude: Double, width: Double, height: Double, filter: Filter = .all
  ) -> [Hit] {
    let sphere = index.sphere
    return radius(
      longitude: longitude, latitude: latitude,
      radius: (width * width + height * height).squareRoot() / 2, filter: filter
    ).filter { hit in
      sphere.distance(
        longitude: longitude, latitude: latitude, longitude: longitude, latitude: hit.latitude)
        <= height / 2
        && sphere.distance(
          longitude: longitude, latitude: hit.latitude, longitude: hit.longitude,
          latitude: hit.latitude) <= width / 2
    }
  }

  public func box(_ box: GeoBox, filter: Filter = .all) -> [Hit] {
    self.box(box, filter: filter, limit: .max)
  }

  /// Every matching item in the box, at most `limit` of them.
  public func box(_ box: GeoBox, filter: Filter = .all, limit: Int) -> [Hit] {
    var out = takeHits()
    guard limit > 0 else { return give(out) }
    var stack = takeStack()
    // A node wholly inside the box is marked in `level`'s high bit: its items need no test.
    let inside: Int32 = 1 << 16
    reading { tree, overflow in
      for item in overflow.items
      where filter.matches(item.attributes)
        && box.contains(longitude: item.longitude, latitude: item.latitude)
      {
        out.append(
          Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: 0))
      }
      Self.pushRoot(tree, filter, onto: &stack)
      traversal: while let entry = stack.popLast() {
        let g = Int(entry.ref)
        let whole = entry.level & inside != 0
        let level = Int(entry.level & ~inside)
        if level == 0 {
          for s in tree.slots(of: g) where tree.passes(s, filter) {
            let lon = tree.lonlat[s * 2]
            let lat = tree.lonlat[s * 2 + 1]
            guard whole || box.contains(longitude: lon, latitude: lat) else { continue }
            out.append(Hit(id: tree.ids[s], longitude: lon, latitude: lat, distance: 0))
            if out.count >= limit { break traversal }
          }
          continue
        }
        for c in tree.children(of: g, level: level) where tree.mayMatchBoxed(c, filter) {
          if whole {
            stack.append(Ref(ref: Int32(c), level: Int32(level - 1) | inside))
            continue
          }
          let ll = tree.bbox + c * 4
          switch box.relation(
            minLongitude: ll[0], minLatitude: ll[1], maxLongitude: ll[2], maxLatitude: ll[3])
          {
          case .disjoint: continue
          case .inside: stack.append(Ref(ref: Int32(c), level: Int32(level - 1) | inside))
          case .overlapping: stack.append(Ref(ref: Int32(c), level: Int32(level - 1)))
          }
        }
      }
    }
    self.stack = stack
    if out.count > limit { out.removeLast(out.count - limit) }
    return give(out)
  }

  public func circlesContaining(longitude: Double, latitude: Double, filter: Filter = .all) -> [Hit]
  {
    circlesContaining(longitude: longitude, latitude: latitude, margin: 0, filter: filter)
  }

  /// The items whose circle (`Item.radius`) holds the point, or comes within `margin` metres
  /// of it.
  public func circlesContaining(
    longitude: Double, latitude: Double, margin: Double, filter: Filter = .all
  ) -> [Hit] {
    var out = takeHits()
    let q = UnitVector(longitude: longitude, latitude: latitude)
    let from = index.sphere.distances(fromLongitude: longitude, latitude: latitude)
    let sphereRadius = index.sphere.radius
    // A chord is never longer than its arc: (r / R)² bounds the squared chord of radius r.
    @inline(__always) func reach(_ r: Float) -> Double {
      let angle = (Double(r) + margin) / sphereRadius
      return Self.widen(angle * angle)
    }
    var stack = takeStack()
    reading { tree, overflow in
      for i in overflow.items.indices {
        let item = overflow.items[i]
        guard filter.matches(item.attributes),
          overflow.vectors[i].chordSquared(to: q) <= reach(item.radius)
        else { continue }
        let d = from.distance(longitude: item.longitude, latitude: item.latitude)
        if d <= Double(item.radius) + margin {
          out.append(
            Hit(id: item.id, longitude: item.longitude, latitude: item.latitude, distance: d))
        }
      }
      Self.pushRoot(tree, filter, onto: &stack)
      while let entry = stack.popLast() {
        let g = Int(entry.ref)
        if entry.level == 0 {
          for s in tree.slots(of: g)
          where tree.passes(s, filter) && tree.chordSquared(slot: s, q) <= reach(tree.radius[s]) {
            let lon = tree.lonlat[s * 2]
            let lat = tree.lonlat[s * 2 + 1]
            let d = from.distance(longitude: lon, latitude: lat)
            if d <= Double(tree.radius[s]) + margin {
              out.append(Hit(id: tree.ids[s], longitude: lon, latitude: lat, distance: d))
            }
          }
          continue
        }
        let level = Int(entry.level)
        for c in tree.children(of: g, level: level)
        where tree.mayMatchBoxed(c, filter)
          && tree.lowerBound(node: c, q) <= reach(tree.maxRadius[c])
        {
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    self.stack = stack
    return give(out)
  }
}

extension GeoBox {
  enum Relation { case disjoint, overlapping, inside }

  /// How a lon/lat rectangle (not crossing the antimeridian) lies relative to this box.
  @inline(__always)
  func relation(
    minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double
  )
    -> Relation
  {
    guard maxLatitude >= self.minLatitude, minLatitude <= self.maxLatitude else { return .disjoint }
    let latInside = minLatitude >= self.minLatitude && maxLatitude <= self.maxLatitude
    @inline(__always) func against(_ west: Double, _ east: Double) -> Relation {
      guard maxLongitude >= west, minLongitude <= east else { return .disjoint }
      return latInside && minLongitude >= west && maxLongitude <= east ? .inside : .overlapping
    }
    if !crossesAntimeridian { return against(self.minLongitude, self.maxLongitude) }
    let a = against(self.minLongitude, 180)
    let b = against(-180, self.maxLongitude)
    if a == .inside || b == .inside { return .inside }
    return a == .disjoint && b == .disjoint ? .disjoint : .overlapping
  }
}
