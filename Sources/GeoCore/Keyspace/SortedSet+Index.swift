import Geodesy
import SpatialIndex

extension SortedSet {
  /// The state of the set's spatial index, for INFO: its overflow and rebuilds.
  public var indexStatistics: GeoIndex.Statistics { index.statistics }

  /// Whether a search may find more than `limit` members: a bound from the index's node counts,
  /// told in a few box tests where the search would find few.
  public func mayFind(moreThan limit: Int, _ search: RedisGeoArea.Search) -> Bool {
    guard count > limit else { return false }
    let lent = takeScratch()
    defer { giveBack(lent) }
    return lent._withUnsafeGuaranteedRef {
      $0.searcher.mayFind(
        moreThan: limit, longitude: search.longitude, latitude: search.latitude,
        radius: Self.widened(search.enclosingRadius))
    }
  }
}

extension SortedSet {
  /// The members within `radius` metres (on the index's sphere) of a point, with their places:
  /// the index's own query, whole on the sphere (across the antimeridian, round a pole), unlike
  /// Redis's search by geohash cells.
  public func members(within radius: Double, ofLongitude longitude: Double, latitude: Double)
    -> [(member: Bytes, longitude: Double, latitude: Double)]
  {
    let lent = takeScratch()
    defer { giveBack(lent) }
    return lent._withUnsafeGuaranteedRef { scratch in
      scratch.searcher.radius(longitude: longitude, latitude: latitude, radius: radius).map {
        (names.name($0.id), $0.longitude, $0.latitude)
      }
    }
  }
}
