import Geodesy

/// The grid that map clustering groups items by: at zoom z the Web Mercator world is cut into
/// 2^(z + cellBits) square cells a side, so each 512-pixel tile holds 8 × 8 cells of 64 pixels.
/// Cells nest: a cell at zoom z is exactly four cells at z + 1, which is what makes the zoom at
/// which a cluster splits well defined, and lets whole index nodes that fit in one cell be
/// counted from their aggregates.
public struct ClusterGrid: Sendable {
  public static let cellBits = 3
  public static let maxZoom = 20

  public let zoom: Int
  /// Cells per side.
  public let size: Int
  @usableFromInline let scale: Double

  public init(zoom: Int) {
    precondition((0...Self.maxZoom).contains(zoom), "zoom must be 0...\(Self.maxZoom)")
    self.zoom = zoom
    self.size = 1 << (zoom + Self.cellBits)
    self.scale = Double(size)
  }

  @inlinable
  public func column(longitude: Double) -> Int { cell(WebMercator.x(longitude: longitude)) }

  @inlinable
  public func row(latitude: Double) -> Int { cell(WebMercator.y(latitude: latitude)) }

  /// Cell index along one axis from a normalised Mercator coordinate 0...1.
  @usableFromInline @inline(__always)
  func cell(_ unit: Double) -> Int {
    let c = Int(unit * scale)
    return c < 0 ? 0 : (c >= size ? size - 1 : c)
  }

  /// The first zoom above this one at which items spanning the given Mercator extent fall into
  /// more than one cell; `maxZoom + 1` when they never do (identical points).
  public func splitZoom(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Int {
    var z = zoom + 1
    while z <= Self.maxZoom {
      let s = Double(1 << (z + Self.cellBits))
      let n = 1 << (z + Self.cellBits)
      func cell(_ u: Double) -> Int { min(n - 1, max(0, Int(u * s))) }
      if cell(minX) != cell(maxX) || cell(minY) != cell(maxY) { return z }
      z += 1
    }
    return Self.maxZoom + 1
  }
}

/// One map marker: a cluster of `count` items at their centroid, or a single item (`count == 1`,
/// `id` set, at the item's own position).
public struct Cluster: Hashable, Sendable {
  public var count: Int
  public var longitude: Double
  public var latitude: Double
  /// The zoom at which this cluster splits into several markers (where a tap should zoom to);
  /// `ClusterGrid.maxZoom + 1` for points that never separate. Equals the query zoom for a single.
  public var expansionZoom: Int
  /// The item, when the marker is a single item.
  public var id: ItemID?
  /// The grid cell, row and column at the query zoom.
  public var row: Int
  public var column: Int

  public init(
    count: Int, longitude: Double, latitude: Double, expansionZoom: Int, id: ItemID?, row: Int,
    column: Int
  ) {
    self.count = count
    self.longitude = longitude
    self.latitude = latitude
    self.expansionZoom = expansionZoom
    self.id = id
    self.row = row
    self.column = column
  }
}

/// Centroids are means of coordinates in fixed point (1e-7 degrees, about 1 cm), so sums kept in
/// index nodes never drift however many moves they see, and every path gives the same answer.
enum FixedPoint {
  static let scale = 1e7

  /// Rounds half away from zero, without a libm call: bulk builds encode every point.
  @inline(__always)
  static func encode(_ degrees: Double) -> Int64 {
    let v = degrees * scale
    return Int64(v + (v < 0 ? -0.5 : 0.5))
  }

  static func mean(_ sum: Int64, count: Int) -> Double { Double(sum) / Double(count) / scale }
}

/// Accumulates one cell's items while clusters are gathered.
struct ClusterCell {
  var count = 0
  var sumLongitude: Int64 = 0
  var sumLatitude: Int64 = 0
  var minLongitude = Double.infinity
  var minLatitude = Double.infinity
  var maxLongitude = -Double.infinity
  var maxLatitude = -Double.infinity
  var firstID: ItemID = 0
  var firstLongitude = 0.0
  var firstLatitude = 0.0

  mutating func add(id: ItemID, longitude: Double, latitude: Double) {
    if count == 0 {
      firstID = id
      firstLongitude = longitude
      firstLatitude = latitude
    }
    count += 1
    sumLongitude += FixedPoint.encode(longitude)
    sumLatitude += FixedPoint.encode(latitude)
    minLongitude = min(minLongitude, longitude)
    maxLongitude = max(maxLongitude, longitude)
    minLatitude = min(minLatitude, latitude)
    maxLatitude = max(maxLatitude, latitude)
  }

  /// Adds a group of items known only by aggregates (an index node).
  mutating func add(
    count n: Int, sumLongitude sx: Int64, sumLatitude sy: Int64, minLongitude: Double,
    minLatitude: Double, maxLongitude: Double, maxLatitude: Double
  ) {
    count += n
    sumLongitude += sx
    sumLatitude += sy
    self.minLongitude = min(self.minLongitude, minLongitude)
    self.maxLongitude = max(self.maxLongitude, maxLongitude)
    self.minLatitude = min(self.minLatitude, minLatitude)
    self.maxLatitude = max(self.maxLatitude, maxLatitude)
  }

  func marker(grid: ClusterGrid, row: Int, column: Int) -> Cluster {
    if count == 1 {
      return Cluster(
        count: 1, longitude: firstLongitude, latitude: firstLatitude, expansionZoom: grid.zoom,
        id: firstID, row: row, column: column)
    }
    let split = grid.splitZoom(
      minX: WebMercator.x(longitude: minLongitude), minY: WebMercator.y(latitude: maxLatitude),
      maxX: WebMercator.x(longitude: maxLongitude), maxY: WebMercator.y(latitude: minLatitude))
    return Cluster(
      count: count, longitude: FixedPoint.mean(sumLongitude, count: count),
      latitude: FixedPoint.mean(sumLatitude, count: count), expansionZoom: split, id: nil,
      row: row, column: column)
  }
}

extension ClusterGrid {
  /// The cells a viewport touches: one row range, and one column range or two when the viewport
  /// crosses the antimeridian.
  public func cells(covering box: GeoBox) -> (rows: ClosedRange<Int>, columns: [ClosedRange<Int>]) {
    let rows = row(latitude: box.maxLatitude)...row(latitude: box.minLatitude)
    let west = column(longitude: box.minLongitude)
    let east = column(longitude: box.maxLongitude)
    if box.crossesAntimeridian {
      return (rows, [west...(size - 1), 0...east])
    }
    return (rows, [west...east])
  }
}

/// Finds grid rows by comparing latitudes with the row edges of a viewport, with no logarithm
/// per item. Within 1e-9° of an edge it defers to `ClusterGrid.row(latitude:)`, so it always
/// agrees with it exactly. Rows north or south of the range come back as `first - 1` or
/// `last + 1`. A viewport of more than `maxEdges` rows (a wide view at a deep zoom, which
/// a map never asks for) is served by `ClusterGrid.row` alone.
struct RowLocator {
  let grid: ClusterGrid
  let first: Int
  let last: Int
  /// Edge latitudes, north to south: `edges[i]` is the northern edge of row `first + i`.
  private let edges: [Double]
  /// The row of every latitude in each of equal latitude buckets spanning the rows, or
  /// `Int32.min` where an edge lies in (or within 1e-9° of) the bucket: one multiplication
  /// answers most lookups.
  private let buckets: [Int32]
  private let south: Double
  private let bucketScale: Double

  static let maxEdges = 4096
  static let bucketsPerRow = 16

  init(grid: ClusterGrid, rows: ClosedRange<Int>) {
    self.grid = grid
    first = rows.lowerBound
    last = rows.upperBound
    guard rows.count <= Self.maxEdges else {
      edges = []
      buckets = []
      south = 0
      bucketScale = 0
      return
    }
    edges = (first...(last + 1)).map { j in
      if j == 0 { return .infinity }
      if j == grid.size { return -.infinity }
      return WebMercator.latitude(y: Double(j) / grid.scale)
    }
    let north = edges[0].isFinite ? edges[0] : 90
    south = edges[edges.count - 1].isFinite ? edges[edges.count - 1] : -90
    let count = rows.count * Self.bucketsPerRow
    bucketScale = Double(count) / max(north - south, .leastNormalMagnitude)
    var table = [Int32](repeating: .min, count: count)
    for i in 0..<count {
      let low = south + Double(i) / bucketScale
      let high = south + Double(i + 1) / bucketScale
      let a = Self.search(edges, first: first, last: last, grid: grid, latitude: low - 2e-9)
      let b = Self.search(edges, first: first, last: last, grid: grid, latitude: high + 2e-9)
      if a == b { table[i] = Int32(a) }
    }
    buckets = table
  }

  @inline(__always)
  func row(latitude: Double) -> Int {
    if edges.isEmpty { return min(last + 1, max(first - 1, grid.row(latitude: latitude))) }
    let i = Int((latitude - south) * bucketScale)
    if i >= 0 && i < buckets.count {
      let r = buckets[i]
      if r != .min { return Int(r) }
    }
    return Self.search(edges, first: first, last: last, grid: grid, latitude: latitude)
  }

  /// The row by binary search over the edges, deferring to the grid near an edge.
  private static func search(
    _ edges: [Double], first: Int, last: Int, grid: ClusterGrid, latitude: Double
  ) -> Int {
    var lo = 0
    var hi = edges.count
    while lo < hi {
      let mid = (lo + hi) >> 1
      if edges[mid] >= latitude { lo = mid + 1 } else { hi = mid }
    }
    // Rows first + lo - 1: edges[lo - 1] ≥ latitude > edges[lo].
    if (lo > 0 && edges[lo - 1] - latitude < 1e-9)
      || (lo < edges.count && latitude - edges[lo] < 1e-9)
    {
      return min(last + 1, max(first - 1, grid.row(latitude: latitude)))
    }
    return first + lo - 1
  }
}
