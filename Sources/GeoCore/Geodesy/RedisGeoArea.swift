#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The area maths of Redis 7.0's GEO searches, ported operation for operation from
/// `src/geohash_helper.c` and `src/geohash.c`, so that a search here covers exactly the geohash
/// cells a real server scans and measures distances to the last bit as it does.
public enum RedisGeoArea {
  /// `EARTH_RADIUS_IN_METERS`.
  public static let earthRadius = 6_372_797.560856
  static let mercatorMax = 20_037_726.37
  static let degreesToRadians = Double.pi / 180.0

  /// A GEOSEARCH shape: a circle, or a box measured in metres along the ground. `width`,
  /// `height` and `radius` are in the request's unit; `conversion` turns that unit into metres.
  public enum Shape: Sendable, Hashable {
    case circle(radius: Double)
    case box(width: Double, height: Double)
  }

  /// A search: centre, shape, unit.
  public struct Search: Sendable, Hashable {
    public var longitude: Double
    public var latitude: Double
    public var shape: Shape
    public var conversion: Double

    public init(longitude: Double, latitude: Double, shape: Shape, conversion: Double) {
      self.longitude = longitude
      self.latitude = latitude
      self.shape = shape
      self.conversion = conversion
    }

    /// `geoWithinShape`: the distance in metres to a point, or nil when the point is outside.
    @inlinable
    public func distance(toLongitude lon: Double, latitude lat: Double) -> Double? {
      switch shape {
      case .circle(let radius):
        let d = RedisGeoArea.distance(longitude, latitude, lon, lat)
        return d > radius * conversion ? nil : d
      case .box(let width, let height):
        // geohashGetDistanceIfInRectangle: latitude first, as Redis checks it.
        if RedisGeoArea.latitudeDistance(lat, latitude) > height * conversion / 2 { return nil }
        if RedisGeoArea.distance(lon, lat, longitude, lat) > width * conversion / 2 { return nil }
        return RedisGeoArea.distance(longitude, latitude, lon, lat)
      }
    }

    /// A radius in metres that contains the whole shape: by the triangle inequality a box's
    /// points lie within half its height plus half its width.
    public var enclosingRadius: Double {
      switch shape {
      case .circle(let radius): return radius * conversion
      case .box(let width, let height): return (width / 2 + height / 2) * conversion
      }
    }
  }

  /// A geohash cell at some precision: `step` bits per axis.
  public struct Cell: Sendable, Hashable {
    public var bits: UInt64
    public var step: Int

    /// Whether a member's 52-bit score falls in this cell (`min <= score < max` in Redis).
    @inlinable
    public func contains(score: UInt64) -> Bool {
      score >> UInt64(52 - 2 * step) == bits
    }
  }

  /// The cells a search scans, in Redis's order (centre, N, S, E, W, NE, NW, SE, SW), without
  /// the neighbours Redis zeroes or skips as repeats (`geohashCalculateAreasByShapeWGS84`,
  /// `membersOfAllNeighbors`). A cell may still appear twice, as in Redis.
  /// Cells are handled by their row and column in the grid rather than interleaved: Redis's
  /// neighbour moves are plus or minus one along an axis, wrapping at the grid's edge.
  public static func cells(for search: Search) -> ScannedCells {
    let bounds = boundingBox(search)
    let radius: Double
    switch search.shape {
    case .circle(let r): radius = r * search.conversion
    case .box(let w, let h):
      radius = sqrt((w / 2) * (w / 2) + (h / 2) * (h / 2)) * search.conversion
    }
    var step = estimateSteps(radius: radius, latitude: search.latitude)
    var centre = GridCell(longitude: search.longitude, latitude: search.latitude, step: step)
    // Redis widens by one step when a side neighbour does not reach the bounds.
    let short =
      centre.moved((0, 1)).maxLatitude < bounds.maxLatitude
      || centre.moved((0, -1)).minLatitude > bounds.minLatitude
      || centre.moved((1, 0)).maxLongitude < bounds.maxLongitude
      || centre.moved((-1, 0)).minLongitude > bounds.minLongitude
    if step > 1 && short {
      step -= 1
      centre = GridCell(longitude: search.longitude, latitude: search.latitude, step: step)
    }
    // Neighbours Redis zeroes, as bits by scan position.
    var zeroed: UInt16 = 0
    if step >= 2 {
      if centre.minLatitude < bounds.minLatitude { zeroed |= 1 << 2 | 1 << 8 | 1 << 7 }
      if centre.maxLatitude > bounds.maxLatitude { zeroed |= 1 << 1 | 1 << 5 | 1 << 6 }
      if centre.minLongitude < bounds.minLongitude { zeroed |= 1 << 4 | 1 << 8 | 1 << 6 }
      if centre.maxLongitude > bounds.maxLongitude { zeroed |= 1 << 3 | 1 << 7 | 1 << 5 }
    }
    // A cell's bits are its row's spread bits and its column's, shifted: three of each serve
    // all nine cells. As in `GridCell.moved`, an axis not moved keeps its value unmasked.
    let mask = UInt32(truncatingIfNeeded: (UInt64(1) << UInt64(step)) - 1)
    let rows = SIMD4(
      RedisGeohash.spread((centre.row &- 1) & mask), RedisGeohash.spread(centre.row),
      RedisGeohash.spread((centre.row &+ 1) & mask), 0)
    let columns = SIMD4(
      RedisGeohash.spread((centre.column &- 1) & mask), RedisGeohash.spread(centre.column),
      RedisGeohash.spread((centre.column &+ 1) & mask), 0)
    // Like Redis, compare with the last scanned cell only once it is not the centre.
    var out = ScannedCells(step: step)
    var last: UInt64? = nil
    for i in 0..<9 where zeroed & (1 << i) == 0 {
      let bits = rows[scanRow(i)] | columns[scanColumn(i)] << 1
      if let last, bits == last { continue }
      out.append(bits)
      if i > 0 { last = bits }
    }
    return out
  }

  /// The cells a search scans (nine at most), held in a value rather than an array: a search
  /// computes them on every query, and an array's storage is a reference to count. (In a tuple,
  /// written through a pointer: a vector written lane by lane is stored and reloaded whole.)
  public struct ScannedCells: RandomAccessCollection, Sendable {
    /// The cells' bits; places past the last cell hold `UInt64.max`, which no cell's bits are.
    @usableFromInline var bits:
      (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (.max, .max, .max, .max, .max, .max, .max, .max, .max)
    /// The precision every cell of a search shares.
    public let step: Int
    public private(set) var endIndex = 0
    public var startIndex: Int { 0 }
    /// The centre's bits when no other cell repeats them, else `UInt64.max`: most of a small
    /// search's members lie in the centre cell, and are then known to be held once at a glance.
    @usableFromInline var uniqueCentre = UInt64.max
    /// Redis scans the centre and its eight neighbours at most: the places in `bits`.
    @usableFromInline static let capacity = 9

    init(step: Int) { self.step = step }

    mutating func append(_ cell: UInt64) {
      precondition(endIndex < Self.capacity, "Redis scans nine cells at most")
      withUnsafeMutableBytes(of: &bits) {
        $0.storeBytes(of: cell, toByteOffset: 8 * endIndex, as: UInt64.self)
      }
      endIndex += 1
      uniqueCentre = endIndex == 1 ? cell : (cell == uniqueCentre ? .max : uniqueCentre)
    }

    public subscript(i: Int) -> Cell {
      precondition(i >= 0 && i < endIndex, "cell index out of range")
      return withUnsafeBytes(of: bits) {
        Cell(bits: $0.load(fromByteOffset: 8 * i, as: UInt64.self), step: step)
      }
    }

    /// How many of the cells hold a 52-bit score: in none, Redis misses the member; in two, it
    /// lists it twice.
    @inlinable @inline(__always)
    public func holding(score: UInt64) -> Int {
      let prefix = score >> UInt64(52 - 2 * step)
      if prefix == uniqueCentre { return 1 }
      return withUnsafeBytes(of: bits) { cells in
        var holding = 0
        for i in 0..<Self.capacity
        where cells.load(fromByteOffset: 8 * i, as: UInt64.self) == prefix {
          holding += 1
        }
        return holding
      }
    }
  }

  /// The scan order (`membersOfAllNeighbors`): the cell itself, N, S, E, W, NE, NW, SE, SW, as
  /// each one's row and column relative to the centre's, plus one, two bits per cell.
  @inline(__always)
  private static func scanRow(_ i: Int) -> Int { Int(0b00_00_10_10_01_01_00_10_01 >> (2 * i) & 3) }
  @inline(__always)
  private static func scanColumn(_ i: Int) -> Int {
    Int(0b00_10_00_10_00_10_01_01_01 >> (2 * i) & 3)
  }

  /// `geohashEstimateStepsByRadius`.
  static func estimateSteps(radius: Double, latitude: Double) -> Int {
    if radius == 0 { return 26 }
    var range = radius
    var step = 1
    while range < mercatorMax {
      range *= 2
      step += 1
    }
    step -= 2
    if latitude > 66 || latitude < -66 {
      step -= 1
      if latitude > 80 || latitude < -80 { step -= 1 }
    }
    return min(max(step, 1), 26)
  }

  /// `geohashBoundingBox`.
  static func boundingBox(_ search: Search) -> LonLatRect {
    let height: Double
    let width: Double
    switch search.shape {
    case .circle(let r):
      height = search.conversion * r
      width = search.conversion * r
    case .box(let w, let h):
      height = search.conversion * (h / 2)
      width = search.conversion * (w / 2)
    }
    let latitudeDelta = height / earthRadius / degreesToRadians
    // Redis computes the widths at the top and the bottom and keeps the one nearer the pole.
    let poleward =
      search.latitude < 0 ? search.latitude - latitudeDelta : search.latitude + latitudeDelta
    let longitudeDelta = width / earthRadius / cos(poleward * degreesToRadians) / degreesToRadians
    return LonLatRect(
      minLongitude: search.longitude - longitudeDelta,
      minLatitude: search.latitude - latitudeDelta,
      maxLongitude: search.longitude + longitudeDelta,
      maxLatitude: search.latitude + latitudeDelta)
  }

  /// A geohash cell by its column (longitude) and row (latitude) in a grid of `step` bits per
  /// axis, with the edges `geohashDecode` computes for it, operation for operation.
  struct GridCell: Equatable {
    var column: UInt32
    var row: UInt32
    let step: Int

    init(column: UInt32, row: UInt32, step: Int) {
      self.column = column
      self.row = row
      self.step = step
    }

    /// `geohashEncodeWGS84`'s cell.
    init(longitude: Double, latitude: Double, step: Int) {
      let scale = Double(UInt64(1) << UInt64(step))
      let latitudeOffset =
        (latitude - RedisGeohash.minimumLatitude)
        / (RedisGeohash.maximumLatitude - RedisGeohash.minimumLatitude) * scale
      let longitudeOffset =
        (longitude - RedisGeohash.minimumLongitude)
        / (RedisGeohash.maximumLongitude - RedisGeohash.minimumLongitude) * scale
      self.init(column: UInt32(longitudeOffset), row: UInt32(latitudeOffset), step: step)
    }

    /// The cell `dx` columns east and `dy` rows north, wrapping at the grid's edges as
    /// `geohash_move_x` and `geohash_move_y` do. Like them, an axis not moved is left as it
    /// is: a point on the grid's top or right edge encodes one past the last row or column.
    func moved(_ move: (dx: Int, dy: Int)) -> GridCell {
      let mask = UInt32(truncatingIfNeeded: (UInt64(1) << UInt64(step)) - 1)
      var moved = self
      if move.dx != 0 { moved.column = UInt32(truncatingIfNeeded: Int(column) + move.dx) & mask }
      if move.dy != 0 { moved.row = UInt32(truncatingIfNeeded: Int(row) + move.dy) & mask }
      return moved
    }

    var minLongitude: Double { Self.longitude(edge: column, step) }
    var maxLongitude: Double { Self.longitude(edge: column &+ 1, step) }
    var minLatitude: Double { Self.latitude(edge: row, step) }
    var maxLatitude: Double { Self.latitude(edge: row &+ 1, step) }

    private static func longitude(edge: UInt32, _ step: Int) -> Double {
      RedisGeohash.minimumLongitude + (Double(edge) * 1.0 * cellFraction(step))
        * (RedisGeohash.maximumLongitude - RedisGeohash.minimumLongitude)
    }

    private static func latitude(edge: UInt32, _ step: Int) -> Double {
      RedisGeohash.minimumLatitude + (Double(edge) * 1.0 * cellFraction(step))
        * (RedisGeohash.maximumLatitude - RedisGeohash.minimumLatitude)
    }

    /// 2⁻ˢᵗᵉᵖ: multiplying by it is exact, as Redis's division by 2ˢᵗᵉᵖ is, and gives the same
    /// bits without a division's latency.
    @inline(__always)
    private static func cellFraction(_ step: Int) -> Double {
      Double(sign: .plus, exponent: -step, significand: 1)
    }
  }

  /// `geohashGetLatDistance`.
  @inlinable
  public static func latitudeDistance(_ lat1: Double, _ lat2: Double) -> Double {
    earthRadius * abs(lat2 * (Double.pi / 180.0) - lat1 * (Double.pi / 180.0))
  }

  /// `geohashGetDistance`: haversine with Redis's radius and its shortcut for equal longitudes.
  @inlinable
  public static func distance(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double)
    -> Double
  {
    let lon1r = lon1 * (Double.pi / 180.0)
    let lon2r = lon2 * (Double.pi / 180.0)
    let v = sin((lon2r - lon1r) / 2)
    if v == 0.0 { return latitudeDistance(lat1, lat2) }
    let lat1r = lat1 * (Double.pi / 180.0)
    let lat2r = lat2 * (Double.pi / 180.0)
    let u = sin((lat2r - lat1r) / 2)
    let a = u * u + cos(lat1r) * cos(lat2r) * v * v
    return 2.0 * earthRadius * asin(sqrt(a))
  }
}
