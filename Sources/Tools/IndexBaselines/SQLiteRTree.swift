import GRDB
import Geodesy
import SpatialIndex

/// What users would pick instead of our in-memory index: SQLite's R*Tree module, the structure
/// SpatiaLite's spatial index is built on, driven through GRDB the way an application would.
///
/// The points live in an ordinary table `points(id, lon, lat)` with an R*Tree
/// `points_rtree(id, minX, maxX, minY, maxY)` beside it, each point a degenerate box. The R*Tree
/// only answers "which boxes overlap this box", and it stores 32-bit floats (rounded outwards), so
/// every query asks for the bounding boxes of the search area, joins the exact coordinates from
/// `points` and keeps what passes the exact great-circle test, computed with the same
/// `Sphere.distance` as `LinearScan`. Results are ordered as `LinearScan` orders them.
///
/// The database is in memory unless a path is given. Queries go through GRDB's cached prepared
/// statements on one serial `DatabaseQueue`, so an instance may be shared between threads but
/// answers one query at a time. Filters and item radii are not stored: this baseline is about
/// points.
public final class SQLiteRTree: Sendable {
  private let queue: DatabaseQueue
  public let sphere: Sphere
  /// Number of points stored.
  public let count: Int
  /// The first search radius of `nearest`, in metres.
  public let initialRadius: Double

  /// Creates the tables and bulk-loads the items in one transaction with prepared statements.
  ///
  /// - Parameters:
  ///   - path: a database file to create, or nil for an in-memory database.
  ///   - initialRadius: where `nearest`'s expanding search starts, in metres.
  /// - Throws: GRDB's `DatabaseError`, e.g. for a repeated id.
  public init(
    items: [Item], path: String? = nil, sphere: Sphere = .earth, initialRadius: Double = 100
  ) throws {
    precondition(initialRadius > 0, "initialRadius must be positive")
    queue = try path.map { try DatabaseQueue(path: $0) } ?? DatabaseQueue()
    self.sphere = sphere
    self.initialRadius = initialRadius
    count = items.count
    try queue.inDatabase { db in
      try db.execute(
        sql: """
          CREATE TABLE points(id INTEGER PRIMARY KEY, lon REAL NOT NULL, lat REAL NOT NULL);
          CREATE VIRTUAL TABLE points_rtree USING rtree(id, minX, maxX, minY, maxY);
          """)
      try db.inTransaction {
        let point = try db.makeStatement(sql: "INSERT INTO points(id, lon, lat) VALUES (?, ?, ?)")
        let box = try db.makeStatement(
          sql: "INSERT INTO points_rtree(id, minX, maxX, minY, maxY) VALUES (?, ?, ?, ?, ?)")
        for item in items {
          let id = Int64(item.id)
          try point.execute(arguments: [id, item.longitude, item.latitude])
          try box.execute(
            arguments: [id, item.longitude, item.longitude, item.latitude, item.latitude])
        }
        return .commit
      }
    }
  }

  private static let overlapSQL = """
    SELECT p.id, p.lon, p.lat FROM points_rtree AS r JOIN points AS p ON p.id = r.id
    WHERE r.minX <= ? AND r.maxX >= ? AND r.minY <= ? AND r.maxY >= ?
    """

  /// Calls `body` with the exact id and coordinates of every point inside the rectangles, each
  /// point once (the rectangles must not overlap but at their edges, as `capBounds` gives them).
  private func scan(
    _ rects: [LonLatRect], _ body: (ItemID, Double, Double) -> Void
  ) throws {
    try queue.inDatabase { db in
      let statement = try db.cachedStatement(sql: Self.overlapSQL)
      for rect in rects {
        let rows = try Row.fetchCursor(
          statement,
          arguments: [rect.maxLongitude, rect.minLongitude, rect.maxLatitude, rect.minLatitude])
        while let row = try rows.next() {
          let longitude: Double = row[1]
          let latitude: Double = row[2]
          // The R*Tree's float boxes are a little wider than the points; this exact test also
          // keeps a point on the antimeridian from being reported by both halves of a split cap.
          if rect.contains(longitude: longitude, latitude: latitude) {
            body(ItemID(truncatingIfNeeded: row[0] as Int64), longitude, latitude)
          }
        }
      }
    }
  }

  /// Rectangles covering every point whose computed distance may be at most `radius`: the cap's
  /// bounds with the radius padded by a metre and a part in 10⁹, so rounding in the haversine
  /// formula can never drop a point that `LinearScan` would return.
  private func searchRects(longitude: Double, latitude: Double, radius: Double) -> [LonLatRect] {
    let padded = min(radius * (1 + 1e-9) + 1, 2 * sphere.maximumDistance)
    return sphere.capBounds(longitude: longitude, latitude: latitude, radius: padded)
  }

  private static func byDistance(_ a: Hit, _ b: Hit) -> Bool {
    a.distance < b.distance || (a.distance == b.distance && a.id < b.id)
  }

  /// Every point within `radius` metres (inclusive), nearest first, ties by id.
  public func radius(longitude: Double, latitude: Double, radius: Double) throws -> [Hit] {
    guard radius >= 0 else { return [] }
    let from = sphere.distances(fromLongitude: longitude, latitude: latitude)
    var hits = [Hit]()
    try scan(searchRects(longitude: longitude, latitude: latitude, radius: radius)) {
      id, lon, lat in
      let d = from.distance(longitude: lon, latitude: lat)
      if d <= radius { hits.append(Hit(id: id, longitude: lon, latitude: lat, distance: d)) }
    }
    hits.sort(by: Self.byDistance)
    return hits
  }

  /// The `k` nearest points, nearest first, ties by id; all of them when `k` exceeds the count.
  ///
  /// An R*Tree has no nearest-neighbour search of its own (SQLite's has none), so this does what
  /// an application must: search the bounding box of a circle of radius r, starting from
  /// `initialRadius`, and grow r until at least `k` points lie within r, for only then are the k
  /// nearest certain to be among them. r doubles each round, or grows to the k-th smallest
  /// distance among the box's candidates when that is less, which is enough to finish.
  public func nearest(longitude: Double, latitude: Double, k: Int) throws -> [Hit] {
    guard k > 0, count > 0 else { return [] }
    let from = sphere.distances(fromLongitude: longitude, latitude: latitude)
    var hits = [Hit]()
    if k >= count {
      try scan([.world]) { id, lon, lat in
        hits.append(
          Hit(
            id: id, longitude: lon, latitude: lat,
            distance: from.distance(longitude: lon, latitude: lat)))
      }
      hits.sort(by: Self.byDistance)
      return hits
    }
    var r = initialRadius
    var candidates = [Hit]()
    while true {
      candidates.removeAll(keepingCapacity: true)
      try scan(searchRects(longitude: longitude, latitude: latitude, radius: r)) { id, lon, lat in
        candidates.append(
          Hit(
            id: id, longitude: lon, latitude: lat,
            distance: from.distance(longitude: lon, latitude: lat)))
      }
      let within = candidates.reduce(0) { $0 + ($1.distance <= r ? 1 : 0) }
      if within >= k || r >= sphere.maximumDistance {
        candidates.sort(by: Self.byDistance)
        return Array(candidates.prefix(k))
      }
      var next = 2 * r
      if candidates.count >= k {
        let distances = candidates.map(\.distance).sorted()
        next = min(next, distances[k - 1])
      }
      r = next
    }
  }

  /// Every point inside the box (edges included; it may cross the antimeridian), by id, with
  /// distance 0.
  public func box(_ box: GeoBox) throws -> [Hit] {
    let rects =
      box.crossesAntimeridian
      ? [
        LonLatRect(
          minLongitude: box.minLongitude, minLatitude: box.minLatitude, maxLongitude: 180,
          maxLatitude: box.maxLatitude),
        LonLatRect(
          minLongitude: -180, minLatitude: box.minLatitude, maxLongitude: box.maxLongitude,
          maxLatitude: box.maxLatitude),
      ]
      : [
        LonLatRect(
          minLongitude: box.minLongitude, minLatitude: box.minLatitude,
          maxLongitude: box.maxLongitude, maxLatitude: box.maxLatitude)
      ]
    var hits = [Hit]()
    try scan(rects) { id, lon, lat in
      hits.append(Hit(id: id, longitude: lon, latitude: lat, distance: 0))
    }
    hits.sort { $0.id < $1.id }
    return hits
  }

  /// SQLite's plan for the overlap query, one step a line (tests check the R*Tree is used).
  func overlapQueryPlan() throws -> String {
    try queue.inDatabase { db in
      try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.overlapSQL, arguments: [0, 0, 0, 0])
        .map { ($0["detail"] as String?) ?? "" }.joined(separator: "\n")
    }
  }

  /// The SQLite library's version, e.g. "3.40.1".
  public func sqliteVersion() throws -> String {
    try queue.inDatabase { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "" }
  }
}
