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
  public static func cells(for search: Search) -> [Cell] {
    var out: [Cell] = []
    cells(for: search, into: &out)
    return out
  }

  /// `cells(for:)` written over `out`, whose storage a caller may reuse from search to search.
  public static func cells(for search: Search, into out: inout [Cell]) {
    out.removeAll(keepingCapacity: true)
    let bounds = boundingBox(search)
    let radius: Double
    switch search.shape {
    case .circle(let r): radius = r * search.conversion
    case .box(let w, let h):
      radius = sqrt((w / 2) * (w / 2) + (h / 2) * (h / 2)) * search.conversion
    }
    var step = estimateSteps(radius: radius, latitude: search.latitude)
    var hash = encode(longitude: search.longitude, latitude: search.latitude, step: step)
    var area = decode(hash)
    // Redis widens by one step when a side neighbour does not reach the bounds.
    let short =
      decode(neighbour(hash, 1)).maxLatitude < bounds.maxLatitude
      || decode(neighbour(hash, 2)).minLatitude > bounds.minLatitude
      || decode(neighbour(hash, 3)).maxLongitude < bounds.maxLongitude
      || decode(neighbour(hash, 4)).minLongitude > bounds.minLongitude
    if step > 1 && short {
      step -= 1
      hash = encode(longitude: search.longitude, latitude: search.latitude, step: step)
      area = decode(hash)
    }
    // Neighbours Redis zeroes, as bits by scan position.
    var zeroed: UInt16 = 0
    if step >= 2 {
      if area.minLatitude < bounds.minLatitude { zeroed |= 1 << 2 | 1 << 8 | 1 << 7 }
      if area.maxLatitude > bounds.maxLatitude { zeroed |= 1 << 1 | 1 << 5 | 1 << 6 }
      if area.minLongitude < bounds.minLongitude { zeroed |= 1 << 4 | 1 << 8 | 1 << 6 }
      if area.maxLongitude > bounds.maxLongitude { zeroed |= 1 << 3 | 1 << 7 | 1 << 5 }
    }
    // Like Redis, compare with the last scanned cell only once it is not the centre.
    out.reserveCapacity(9)
    var last = 0
    for i in 0..<9 where zeroed & (1 << i) == 0 {
      let cell = neighbour(hash, i)
      if last != 0 && cell == neighbour(hash, last) { continue }
      out.append(cell)
      last = i
    }
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
    let top = width / earthRadius / cos((search.latitude + latitudeDelta) * degreesToRadians)
    let bottom = width / earthRadius / cos((search.latitude - latitudeDelta) * degreesToRadians)
    let longitudeDelta = (search.latitude < 0 ? bottom : top) / degreesToRadians
    return LonLatRect(
      minLongitude: search.longitude - longitudeDelta,
      minLatitude: search.latitude - latitudeDelta,
      maxLongitude: search.longitude + longitudeDelta,
      maxLatitude: search.latitude + latitudeDelta)
  }

  /// `geohashEncodeWGS84` at `step` bits per axis. The point must be valid for Redis.
  static func encode(longitude: Double, latitude: Double, step: Int) -> Cell {
    let scale = Double(UInt64(1) << UInt64(step))
    let latitudeOffset =
      (latitude - RedisGeohash.minimumLatitude)
      / (RedisGeohash.maximumLatitude - RedisGeohash.minimumLatitude) * scale
    let longitudeOffset =
      (longitude - RedisGeohash.minimumLongitude)
      / (RedisGeohash.maximumLongitude - RedisGeohash.minimumLongitude) * scale
    return Cell(
      bits: RedisGeohash.interleave(UInt32(latitudeOffset), UInt32(longitudeOffset)), step: step)
  }

  /// `geohashDecode` over Redis's ranges.
  static func decode(_ cell: Cell) -> LonLatRect {
    let separated = RedisGeohash.deinterleave(cell.bits)
    let latitudeCell = UInt32(truncatingIfNeeded: separated)
    let longitudeCell = UInt32(truncatingIfNeeded: separated >> 32)
    let cells = Double(UInt64(1) << UInt64(cell.step))
    let latitudeScale = RedisGeohash.maximumLatitude - RedisGeohash.minimumLatitude
    let longitudeScale = RedisGeohash.maximumLongitude - RedisGeohash.minimumLongitude
    return LonLatRect(
      minLongitude: RedisGeohash.minimumLongitude + (Double(longitudeCell) * 1.0 / cells)
        * longitudeScale,
      minLatitude: RedisGeohash.minimumLatitude + (Double(latitudeCell) * 1.0 / cells)
        * latitudeScale,
      maxLongitude: RedisGeohash.minimumLongitude + (Double(longitudeCell &+ 1) * 1.0 / cells)
        * longitudeScale,
      maxLatitude: RedisGeohash.minimumLatitude + (Double(latitudeCell &+ 1) * 1.0 / cells)
        * latitudeScale)
  }

  /// Neighbour `i` of `geohashNeighbors`, in the order `membersOfAllNeighbors` scans: the cell
  /// itself, N, S, E, W, NE, NW, SE, SW. Moves wrap around at the edges of the grid.
  static func neighbour(_ cell: Cell, _ i: Int) -> Cell {
    let dx = [0, 0, 0, 1, -1, 1, -1, 1, -1][i]
    let dy = [0, 1, -1, 0, 0, 1, 1, -1, -1][i]
    return Cell(bits: moveY(moveX(cell.bits, dx, cell.step), dy, cell.step), step: cell.step)
  }

  /// `geohash_move_x`: longitude lives in the odd bits.
  static func moveX(_ bits: UInt64, _ d: Int, _ step: Int) -> UInt64 {
    move(bits, d, step, axis: 0xaaaa_aaaa_aaaa_aaaa)
  }

  /// `geohash_move_y`: latitude lives in the even bits.
  static func moveY(_ bits: UInt64, _ d: Int, _ step: Int) -> UInt64 {
    move(bits, d, step, axis: 0x5555_5555_5555_5555)
  }

  /// One cell along the axis whose bits `axis` selects, wrapping at the edge: Redis adds or
  /// subtracts one in the axis's interleaved bits, filling the other axis's bits with ones so
  /// the carry or borrow passes over them.
  private static func move(_ bits: UInt64, _ d: Int, _ step: Int, axis: UInt64) -> UInt64 {
    if d == 0 { return bits }
    var v = bits & axis
    let rest = bits & ~axis
    let shift = UInt64(64 - step * 2)
    let zz = ~axis >> shift
    if d > 0 {
      v = v &+ (zz &+ 1)
    } else {
      v = v | zz
      v = v &- (zz &+ 1)
    }
    v &= axis >> shift
    return v | rest
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
