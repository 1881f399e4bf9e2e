/// The queries the map, pin and people features ask. `GeoSearcher` answers them from the index;
/// `LinearScan` answers them by brute force, and the two must agree.
public protocol SpatialQuerying {
  /// The `k` nearest matching items within `maxDistance` metres, nearest first, ties by id.
  func nearest(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double, filter: Filter
  )
    -> [Hit]
  /// Every matching item within `radius` metres of the point, edges included, in no set order.
  func radius(longitude: Double, latitude: Double, radius: Double, filter: Filter) -> [Hit]
  /// Every matching item inside the box, edges included, in no set order.
  func box(_ box: GeoBox, filter: Filter) -> [Hit]
  /// Every matching item whose own circle holds the point, in no set order.
  func circlesContaining(longitude: Double, latitude: Double, filter: Filter) -> [Hit]
  /// Markers for the cluster-grid cells the viewport touches at `zoom`, by row then column.
  func clusters(in box: GeoBox, zoom: Int, filter: Filter) -> [Cluster]
}
