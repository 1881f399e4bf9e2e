import Geodesy
import SpatialIndex

/// A map marker for a viewport: a cluster of cards, or one card.
public enum CardMarker: Sendable {
  case cluster(count: Int, longitude: Double, latitude: Double, expansionZoom: Int)
  case card(CardHit)
}

extension Cards {
  /// A map's viewport from its corners (CARD.CLUSTERS, BOUNDS, `GET /v1/cards`), or nil when
  /// a coordinate is not a number or out of range or the south is north of the north. The
  /// minimum longitude may be east of the maximum: the viewport crosses the antimeridian.
  public static func viewport(
    minLongitude a: Double, minLatitude b: Double, maxLongitude c: Double, maxLatitude d: Double
  ) -> GeoBox? {
    guard [a, c].allSatisfy({ abs($0) <= 180 }), [b, d].allSatisfy({ abs($0) <= 90 }), b <= d
    else { return nil }
    return GeoBox(minLongitude: a, minLatitude: b, maxLongitude: c, maxLatitude: d)
  }

  /// The deepest zoom CARD.CLUSTERS answers.
  public static let maxClusterZoom = ClusterGrid.maxZoom

  /// How many of the clustering grid's cells a viewport covers at a zoom (64-pixel cells, 8 × 8
  /// per 512-pixel tile): at most one marker each, what bounds a clusters reply; 0 for a zoom
  /// out of range.
  public static func clusterCells(in box: GeoBox, zoom: Int) -> Int {
    guard (0...ClusterGrid.maxZoom).contains(zoom) else { return 0 }
    let (rows, columns) = ClusterGrid(zoom: zoom).cells(covering: box)
    return rows.count * columns.reduce(0) { $0 + $1.count }
  }

  /// The markers for a viewport at a zoom (`CARD.CLUSTERS`): the index's clusters of the grid
  /// cells that cover the viewport (whole cells, so a marker does not change as the map pans),
  /// counted from its nodes' aggregates. With filters, whose attribute bits only narrow the candidates,
  /// the matching cards are found first and grouped on the same grid, so counts are exact.
  public func clusters(
    in box: GeoBox, zoom: Int, filters: [CardFilter] = []
  ) -> Result<[CardMarker], CardError> {
    guard (0...ClusterGrid.maxZoom).contains(zoom) else {
      return .failure(.badQuery("zoom must be 0 to \(ClusterGrid.maxZoom)"))
    }
    return map.searchers.withSearcher { searcher in
      clusters(in: box, zoom: zoom, filters: filters, searcher)
    }
  }

  private func clusters(
    in box: GeoBox, zoom: Int, filters: [CardFilter], _ searcher: GeoSearcher
  ) -> Result<[CardMarker], CardError> {
    guard !filters.isEmpty else {
      return .success(
        searcher.clusters(in: box, zoom: zoom).compactMap { cluster in
          guard let id = cluster.id else {
            return .cluster(
              count: cluster.count, longitude: cluster.longitude, latitude: cluster.latitude,
              expansionZoom: cluster.expansionZoom)
          }
          return hit(id, cluster.longitude, cluster.latitude).map(CardMarker.card)
        })
    }
    // The same cells the index clusters: those covering the viewport, whole.
    let grid = ClusterGrid(zoom: zoom)
    let (rows, columns) = grid.cells(covering: box)
    let size = Double(grid.size)
    let north = rows.lowerBound == 0 ? 90 : WebMercator.latitude(y: Double(rows.lowerBound) / size)
    let south =
      rows.upperBound == grid.size - 1
      ? -90 : WebMercator.latitude(y: Double(rows.upperBound + 1) / size)
    var cells: [Int: [CardHit]] = [:]
    for span in columns {
      let extent = GeoBox(
        minLongitude: Double(span.lowerBound) / size * 360 - 180, minLatitude: south,
        maxLongitude: Double(span.upperBound + 1) / size * 360 - 180, maxLatitude: north)
      for found in searcher.box(extent, filter: CardFilter.indexFilter(filters)) {
        let row = grid.row(latitude: found.latitude)
        let column = grid.column(longitude: found.longitude)
        guard rows.contains(row), span.contains(column),
          state.withLock({ s in filters.allSatisfy { $0.matches(Int64(found.id), in: s.cards) } }),
          let hit = hit(found.id, found.longitude, found.latitude)
        else { continue }
        cells[row * grid.size + column, default: []].append(hit)
      }
    }
    return .success(
      cells.keys.sorted().map { cell in
        let hits = cells[cell]!
        guard hits.count > 1 else { return .card(hits[0]) }
        let xs = hits.map { WebMercator.x(longitude: $0.longitude) }
        let ys = hits.map { WebMercator.y(latitude: $0.latitude) }
        return .cluster(
          count: hits.count,
          longitude: hits.map(\.longitude).reduce(0, +) / Double(hits.count),
          latitude: hits.map(\.latitude).reduce(0, +) / Double(hits.count),
          expansionZoom: grid.splitZoom(
            minX: xs.min()!, minY: ys.min()!, maxX: xs.max()!, maxY: ys.max()!))
      })
  }

  private func hit(_ id: ItemID, _ longitude: Double, _ latitude: Double) -> CardHit? {
    map.withHits([Hit(id: id, longitude: longitude, latitude: latitude, distance: 0)]) {
      $0.first.map(CardHit.init)
    }
  }
}
