import SpatialIndex

extension SortedSet {
  /// The state of the set's spatial index, for INFO: its overflow and rebuilds.
  public var indexStatistics: GeoIndex.Statistics { index.statistics }
}
