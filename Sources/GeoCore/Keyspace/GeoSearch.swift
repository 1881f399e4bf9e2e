import Geodesy
import SpatialIndex

/// One GEOSEARCH answer: a member (by its slot in the set searched: `SortedSet.member(_:)` and
/// `withMember` name it), its distance in metres from the centre (NaN when the search was asked
/// for none), its score, and the position decoded from that score. Names are read only when a reply is written, straight from the set.
public struct GeoMatch: Sendable, Hashable {
  public var slot: UInt32
  public var distance: Double
  public var score: Double
  public var longitude: Double
  public var latitude: Double

  public init(slot: UInt32, distance: Double, score: Double, longitude: Double, latitude: Double) {
    self.slot = slot
    self.distance = distance
    self.score = score
    self.longitude = longitude
    self.latitude = latitude
  }
}

public enum GeoSortOrder: Sendable {
  case none, ascending, descending
}

extension SortedSet {
  /// Redis 7.0's `georadiusGeneric` search, answered by the spatial index.
  ///
  /// Redis scans up to nine geohash cells around the centre, in a fixed order and by score
  /// within each, keeping the members inside the shape. The same members come out here, in
  /// the same order: the index finds the members inside the shape, and each is placed by the
  /// cell that holds it and its score. `count` 0 means no limit; with `any`, the first `count`
  /// in scan order are kept, as Redis stops scanning once it has them. A count is below
  /// `Int.max` (the index is asked for one more): Commands saturates it where it is parsed.
  ///
  /// Without `distances`, the matches' `distance` may be NaN: the nearest are then ordered and
  /// placed inside the circle by their chords wherever no rounding could change the outcome,
  /// and only Redis's haversine for members in doubt would be computed.
  public func search(
    _ search: RedisGeoArea.Search, sort: GeoSortOrder, count: Int, any: Bool,
    distances: Bool = true
  ) -> [GeoMatch] {
    var found: [GeoMatch] = []
    withSearch(search, sort: sort, count: count, any: any, distances: distances) {
      found = Array($0)
    }
    return found
  }

  /// `search`, its matches lent to `body` (valid only inside it) rather than returned: the
  /// nearest are lent from this thread's scratch space, so no array's reference is counted.
  /// (Not generic over a result: called from another module, a generic one ran unspecialised.)
  public func withSearch(
    _ search: RedisGeoArea.Search, sort: GeoSortOrder, count: Int, any: Bool,
    distances: Bool = true, _ body: (UnsafeBufferPointer<GeoMatch>) -> Void
  ) {
    let cells = RedisGeoArea.cells(for: search)
    let lent = takeScratch()
    defer { giveBack(lent) }
    lent._withUnsafeGuaranteedRef { scratch in
      if sort == .ascending, count > 0, !any, !distances,
        let found = nearestByChord(search, cells, count, scratch)
      {
        return body(UnsafeBufferPointer(start: scratch.matches, count: found))
      }
      return matches(search, cells, sort, count, any, scratch.searcher).withUnsafeBufferPointer(
        body)
    }
  }

  /// The matches by haversine distance, as Redis finds and orders them.
  private func matches(
    _ search: RedisGeoArea.Search, _ cells: RedisGeoArea.ScannedCells, _ sort: GeoSortOrder,
    _ count: Int, _ any: Bool, _ searcher: GeoSearcher
  ) -> [GeoMatch] {
    if sort == .ascending, count > 0, !any {
      if let nearest = nearestFirst(search, cells, count, searcher) { return nearest }
    }
    var found = everyMatch(search, cells, searcher).map(\.match)
    if count > 0 && any && found.count > count { found.removeLast(found.count - count) }
    guard sort != .none else {
      if count > 0 && found.count > count { found.removeLast(found.count - count) }
      return found
    }
    let descending = sort == .descending
    if count == 0 || found.count <= count {
      // All of them: glibc's qsort, a stable merge sort, so equal distances keep scan order.
      found = found.enumerated().sorted { a, b in
        if a.element.distance != b.element.distance {
          return (a.element.distance < b.element.distance) != descending
        }
        return a.offset < b.offset
      }.map(\.element)
    } else {
      // The first `count`: Redis's partial quicksort, which leaves equal distances as it will.
      redisPartialSort(&found, first: count) { a, b in
        let order = a.distance < b.distance ? -1 : (a.distance == b.distance ? 0 : 1)
        return descending ? -order : order
      }
      found.removeLast(found.count - count)
    }
    return found
  }

  /// Every member inside the shape, once per scanned cell holding it, in Redis's scan order.
  private func everyMatch(
    _ search: RedisGeoArea.Search, _ cells: RedisGeoArea.ScannedCells, _ searcher: GeoSearcher
  ) -> [(match: GeoMatch, cell: Int)] {
    let hits = searcher.radius(
      longitude: search.longitude, latitude: search.latitude,
      radius: Self.widened(search.enclosingRadius))
    var found: [(match: GeoMatch, cell: Int)] = []
    for hit in hits {
      guard let match = self.match(hit, search) else { continue }
      let hash = Self.geohash(score: match.score)
      for (position, cell) in cells.enumerated() where cell.contains(score: hash) {
        found.append((match, position))
      }
    }
    found.sort(by: scansBefore)
    return found
  }

  /// Redis's scan order: by cell, then as the sorted set orders (score, then name).
  private func scansBefore(_ a: (match: GeoMatch, cell: Int), _ b: (match: GeoMatch, cell: Int))
    -> Bool
  {
    if a.cell != b.cell { return a.cell < b.cell }
    if a.match.score != b.match.score { return a.match.score < b.match.score }
    return names.precedes(a.match.slot, b.match.slot)
  }

  /// The `count` nearest matches straight from a best-first search, when they are certain:
  /// every one of them is inside the shape and a scanned cell, and the next candidate is
  /// farther than the last. Nil sends the query down the exhaustive path.
  private func nearestFirst(
    _ search: RedisGeoArea.Search, _ cells: RedisGeoArea.ScannedCells, _ count: Int,
    _ searcher: GeoSearcher
  ) -> [GeoMatch]? {
    let hits = searcher.nearest(
      longitude: search.longitude, latitude: search.latitude, k: count + 1,
      within: Self.widened(search.enclosingRadius))
    var out: [GeoMatch] = []
    out.reserveCapacity(min(count, hits.count))
    for hit in hits.prefix(count) {
      guard let match = self.match(hit, search), Self.heldOnce(match.score, by: cells) else {
        return nil
      }
      out.append(match)
    }
    if hits.count > count, let last = out.last,
      Self.widened(last.distance) >= hits[count].distance
    {
      return nil
    }
    out.sort { $0.distance < $1.distance }
    // Equal distances come in an order only Redis's whole scan and sort decide.
    for i in out.indices.dropFirst() where out[i].distance == out[i - 1].distance { return nil }
    return out
  }

  /// `nearestFirst` without a single haversine, for replies that show no distance: nil as soon
  /// as the chords leave a member's inclusion or place in doubt (then the haversines decide).
  /// Chords grow with the distance at least as fast, relatively, so two chords apart by more
  /// than a 1e-8 margin are two distances apart by more than Redis's rounding; `distance` is
  /// NaN. The matches are written to `scratch.matches`; returns how many.
  private func nearestByChord(
    _ search: RedisGeoArea.Search, _ cells: RedisGeoArea.ScannedCells, _ count: Int,
    _ scratch: SearchScratch
  ) -> Int? {
    guard case .circle(let r) = search.shape else { return nil }
    let radius = r * search.conversion
    // Far from the centre's antipode, where the haversine itself loses precision.
    guard radius <= Sphere.redis.maximumDistance / 2 else { return nil }
    let sure = radius * (1 - 1e-8) - 1e-6
    let inside = sure > 0 ? scratch.insideChord.chordSquared(forDistance: sure, on: .redis) : -1
    return scratch.searcher.nearestChords(
      longitude: search.longitude, latitude: search.latitude, k: count + 1,
      within: Self.widened(radius)
    ) { hits -> Int? in
      scratch.reserve(hits.count)
      let out = scratch.matches
      var found = 0
      var previous = -Double.infinity
      for i in hits.indices {
        let hit = hits[i]
        // Compared squared: a chord c within 1e-8 relative plus 1e-12 of the previous one, p,
        // has c² ≤ p²(1 + 1e-8)² + 2p·1e-12(1 + 1e-8) + 1e-24, and 2p·1e-12 ≤ 1e-8·p² + 1e-16.
        if hit.chordSquared <= previous * (1 + 3.0001e-8) + 1.0001e-16 { return nil }
        if i == count { break }
        guard hit.chordSquared <= inside else { return nil }
        let score = score(slot: hit.id)
        guard Self.heldOnce(score, by: cells) else { return nil }
        (out + found).initialize(
          to: GeoMatch(
            slot: hit.id, distance: .nan, score: score, longitude: hit.longitude,
            latitude: hit.latitude))
        found += 1
        previous = hit.chordSquared
      }
      return found
    }
  }

  private func match(_ hit: Hit, _ search: RedisGeoArea.Search) -> GeoMatch? {
    let distance: Double
    if case .circle(let radius) = search.shape, Self.isRedisDistance(hit, search) {
      guard hit.distance <= radius * search.conversion else { return nil }
      distance = hit.distance
    } else {
      guard let d = search.distance(toLongitude: hit.longitude, latitude: hit.latitude)
      else { return nil }
      distance = d
    }
    return GeoMatch(
      slot: hit.id, distance: distance, score: score(slot: hit.id),
      longitude: hit.longitude, latitude: hit.latitude)
  }

  /// Whether the index's distance is already Redis's, bit for bit. Both evaluate the same
  /// haversine with the same operations in the same order, from the same centre to the same
  /// decoded position; they differ only where Redis takes a shortcut for equal longitudes
  /// (`geohashGetDistance`'s `v == 0`) and where the index clamps an antipodal rounding.
  static func isRedisDistance(_ hit: Hit, _ search: RedisGeoArea.Search) -> Bool {
    hit.longitude * (Double.pi / 180.0) != search.longitude * (Double.pi / 180.0)
      && hit.distance < Sphere.redis.maximumDistance * (1 - 1e-12)
  }

  /// The index measures with its own haversine, which may differ from Redis's in the last
  /// bits; candidates are gathered a little wider and Redis's formula decides.
  static func widened(_ metres: Double) -> Double { metres * (1 + 1e-9) + 1e-6 }
}

extension SortedSet {
  /// Whether exactly one scanned cell holds a score. In none, Redis misses the member; in two,
  /// Redis lists it twice. Either way only the exhaustive path answers as Redis does.
  @inline(__always)
  static func heldOnce(_ score: Double, by cells: RedisGeoArea.ScannedCells) -> Bool {
    cells.holding(score: geohash(score: score)) == 1
  }
}
