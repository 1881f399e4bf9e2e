/// Redis's GEO encoding, ported operation for operation from redis/redis `src/geohash.c` and
/// `src/geo.c` so that scores, positions and hashes are bit-identical to a real server's.
///
/// A point's sorted-set score is a 52-bit integer: 26 bits per axis over longitude -180...180
/// and latitude ±85.05112878 (Web Mercator's square), latitude in the even bits and longitude
/// in the odd ones.
public enum RedisGeohash {
  /// `GEO_LONG_MIN` / `GEO_LONG_MAX`.
  public static let minimumLongitude = -180.0
  public static let maximumLongitude = 180.0
  /// `GEO_LAT_MIN` / `GEO_LAT_MAX`: Redis cannot store points nearer the poles than this.
  public static let minimumLatitude = -85.05112878
  public static let maximumLatitude = 85.05112878
  /// `GEO_STEP_MAX`: bits per axis in a score.
  public static let step = 26

  /// Whether GEOADD accepts the pair. Redis rejects anything else with
  /// `ERR invalid longitude,latitude pair %f,%f`. NaN is never valid.
  public static func isValid(longitude: Double, latitude: Double) -> Bool {
    longitude >= minimumLongitude && longitude <= maximumLongitude
      && latitude >= minimumLatitude && latitude <= maximumLatitude
  }

  /// The score GEOADD stores for the point, or nil when Redis would reject it.
  ///
  /// Like `geohashEncode`, it truncates `(v - min) / (max - min) * 2^26`; at the maximum edges
  /// that is 2^26 itself, so the 180 / 85.05112878 edges carry into bit 52 or 53, as in Redis.
  public static func score(longitude: Double, latitude: Double) -> UInt64? {
    guard isValid(longitude: longitude, latitude: latitude) else { return nil }
    return encode(
      longitude: longitude, latitude: latitude, latitudeRange: minimumLatitude...maximumLatitude)
  }

  /// The cell a score stands for (`geohashDecode`). For a score carrying the edge bit, the cell
  /// lies just beyond the range.
  public static func cell(score: UInt64) -> LonLatRect {
    let separated = deinterleave(score)
    // uint32_t cell numbers, as in C: the `+ 1` for the far edge wraps like C's.
    let latitudeCell = UInt32(truncatingIfNeeded: separated)
    let longitudeCell = UInt32(truncatingIfNeeded: separated >> 32)
    let cells = Double(UInt64(1) << UInt64(step))
    let latitudeScale = maximumLatitude - minimumLatitude
    let longitudeScale = maximumLongitude - minimumLongitude
    return LonLatRect(
      minLongitude: minimumLongitude + (Double(longitudeCell) / cells) * longitudeScale,
      minLatitude: minimumLatitude + (Double(latitudeCell) / cells) * latitudeScale,
      maxLongitude: minimumLongitude + (Double(longitudeCell &+ 1) / cells) * longitudeScale,
      maxLatitude: minimumLatitude + (Double(latitudeCell &+ 1) / cells) * latitudeScale)
  }

  /// The position GEOPOS, GEODIST and GEOSEARCH use for a score
  /// (`geohashDecodeToLongLatWGS84`): the cell's centre, clamped to the ranges.
  public static func coordinate(score: UInt64) -> Coordinate {
    let area = cell(score: score)
    let longitude = (area.minLongitude + area.maxLongitude) / 2
    let latitude = (area.minLatitude + area.maxLatitude) / 2
    return Coordinate(
      longitude: min(max(longitude, minimumLongitude), maximumLongitude),
      latitude: min(max(latitude, minimumLatitude), maximumLatitude))
  }

  /// What GEOHASH prints for a score: the decoded position re-encoded over the standard
  /// latitude range -90...90 with 26 steps, as 11 base32 characters. Only 52 bits exist, so the
  /// eleventh character is always "0".
  public static func geohashString(score: UInt64) -> String {
    let point = coordinate(score: score)
    let bits = encode(longitude: point.longitude, latitude: point.latitude, latitudeRange: -90...90)
    var characters: [Character] = []
    for i in 0..<10 {
      characters.append(Geohash.alphabet[Int(bits >> UInt64(52 - (i + 1) * 5) & 0x1f)])
    }
    characters.append(Geohash.alphabet[0])
    return String(characters)
  }

  /// `geohashEncode` at step 26 over longitude -180...180: same operations, same order.
  static func encode(longitude: Double, latitude: Double, latitudeRange: ClosedRange<Double>)
    -> UInt64
  {
    var latitudeOffset =
      (latitude - latitudeRange.lowerBound) / (latitudeRange.upperBound - latitudeRange.lowerBound)
    var longitudeOffset =
      (longitude - minimumLongitude) / (maximumLongitude - minimumLongitude)
    latitudeOffset *= Double(UInt64(1) << UInt64(step))
    longitudeOffset *= Double(UInt64(1) << UInt64(step))
    // C converts the offsets to uint32_t on the call, truncating toward zero.
    return interleave(UInt32(latitudeOffset), UInt32(longitudeOffset))
  }

  /// `interleave64`: x's bits to the even positions, y's to the odd.
  static func interleave(_ xlo: UInt32, _ ylo: UInt32) -> UInt64 {
    spread(xlo) | spread(ylo) << 1
  }

  /// A value's bits moved to the even positions (`interleave64`'s half for one axis).
  @inline(__always)
  static func spread(_ value: UInt32) -> UInt64 {
    var x = UInt64(value)
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
    x = (x | x << 2) & 0x3333_3333_3333_3333
    x = (x | x << 1) & 0x5555_5555_5555_5555
    return x
  }

  /// `deinterleave64`: the even bits to the low half, the odd bits to the high half.
  static func deinterleave(_ interleaved: UInt64) -> UInt64 {
    var x = interleaved
    var y = interleaved >> 1
    x = x & 0x5555_5555_5555_5555
    y = y & 0x5555_5555_5555_5555
    x = (x | x >> 1) & 0x3333_3333_3333_3333
    y = (y | y >> 1) & 0x3333_3333_3333_3333
    x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F
    y = (y | y >> 2) & 0x0F0F_0F0F_0F0F_0F0F
    x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF
    y = (y | y >> 4) & 0x00FF_00FF_00FF_00FF
    x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF
    y = (y | y >> 8) & 0x0000_FFFF_0000_FFFF
    x = (x | x >> 16) & 0x0000_0000_FFFF_FFFF
    y = (y | y >> 16) & 0x0000_0000_FFFF_FFFF
    return x | y << 32
  }
}
