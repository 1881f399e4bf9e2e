import Geodesy

/// The brute-force answer to every query the index serves: a scan of all items. It defines what
/// the index must return (tests compare the two on random and real data) and is the baseline the
/// benchmarks measure the index against.
public struct LinearScan: SpatialQuerying, Sendable {
  public let sphere: Sphere
  public private(set) var items: [Item]

  public init(items: [Item], sphere: Sphere = .earth) {
    self.items = items
    self.sphere = sphere
  }

  private func hit(_ item: Item, _ lon: Double, _ lat: Double) -> Hit {
    Hit(
      id: item.id, longitude: item.longitude, latitude: item.latitude,
      distance: sphere.distance(
        longitude: lon, latitude: lat, longitude: item.longitude, latitude: item.latitude))
  }

  private static func byDistance(_ a: Hit, _ b: Hit) -> Bool {
    a.distance < b.distance || (a.distance == b.distance && a.id < b.id)
  }

  /// The `k` nearest matching items within `maxDistance` metres, nearest first, ties by id.
  public func nearest(
    longitude: Double, latitude: Double, k: Int, within maxDistance: Double = .infinity,
    filter: Filter = .all
  ) -> [Hit] {
    var hits = [Hit]()
    for item in items where filter.matches(item.attributes) {
      let h = hit(item, longitude, latitude)
      if h.distance <= maxDistance { hits.append(h) }
    }
    hits.sort(by: Self.byDistance)
    return Array(hits.prefix(k))
  }

  /// Every matching item within `radius` metres (inclusive), nearest first.
  public func radius(
    longitude: Double, latitude: Double, radius: Double, filter: Filter = .all
  ) -> [Hit] {
    nearest(longitude: longitude, latitude: latitude, k: .max, within: radius, filter: filter)
  }

  /// Every matching item inside the box (edges included), by id.
  public func box(_ box: GeoBox, filter: Filter = .all) -> [Hit] {
    items.filter {
      filter.matches($0.attributes) && box.contains(longitude: $0.longitude, latitude: $0.latitude)
    }
    .map { Hit(id: $0.id, longitude: $0.longitude, latitude: $0.latitude, distance: 0) }
    .sorted { $0.id < $1.id }
  }

  /// Every matching item whose own circle holds the point, nearest first.
  public func circlesContaining(longitude: Double, latitude: Double, filter: Filter = .all) -> [Hit]
  {
    var hits = [Hit]()
    for item in items where filter.matches(item.attributes) {
      let h = hit(item, longitude, latitude)
      if h.distance <= Double(item.radius) { hits.append(h) }
    }
    return hits.sorted(by: Self.byDistance)
  }

  /// Map markers for the cells the viewport touches at `zoom`, by row then column.
  public func clusters(in box: GeoBox, zoom: Int, filter: Filter = .all) -> [Cluster] {
    let grid = ClusterGrid(zoom: zoom)
    let (rows, columns) = grid.cells(covering: box)
    var cells = [Int: ClusterCell]()
    for item in items where filter.matches(item.attributes) {
      let r = grid.row(latitude: item.latitude)
      let c = grid.column(longitude: item.longitude)
      guard rows.contains(r), columns.contains(where: { $0.contains(c) }) else { continue }
      cells[r << 32 | c, default: ClusterCell()].add(
        id: item.id, longitude: item.longitude, latitude: item.latitude)
    }
    return cells.keys.sorted().map { key in
      cells[key]!.marker(grid: grid, row: key >> 32, column: key & 0xFFFF_FFFF)
    }
  }

  public mutating func upsert(_ item: Item) {
    if let i = items.firstIndex(where: { $0.id == item.id }) {
      items[i] = item
    } else {
      items.append(item)
    }
  }

  @discardableResult
  public mutating func remove(id: ItemID) -> Bool {
    guard let i = items.firstIndex(where: { $0.id == id }) else { return false }
    items.remove(at: i)
    return true
  }
}
