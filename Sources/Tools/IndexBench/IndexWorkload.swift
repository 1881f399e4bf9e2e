import Geodesy
import SpatialIndex

/// What the index benchmark runs on: the points, and the places queries are asked from.
public struct IndexWorkload: Sendable {
  /// Items with ids 0..<count.
  public var items: [Item]
  /// Query points distributed like the data (people ask from where people are).
  public var queries: [Coordinate]
  /// Query points in the densest city (anywhere, for uniform data), for the radius figures.
  public var cityQueries: [Coordinate]
  /// Photo pins with view radii, for the circles-holding-a-point figure.
  public var circles: [Item]

  public init(
    items: [Item], queries: [Coordinate], cityQueries: [Coordinate], circles: [Item]
  ) {
    self.items = items
    self.queries = queries
    self.cityQueries = cityQueries
    self.circles = circles
  }
}
