import Foundation
import Geodesy
import Testing

/// Compares `RedisGeohash` with a real redis-server: scores, GEOPOS, GEOHASH and GEODIST must be
/// identical. Fails, rather than skips, when Redis is not installed.
@Suite(.serialized) struct RedisServerTests {
  @Test func matchesRedis() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let points = Self.points()
    var commands = [
      ["GEOADD", "pts"] + points.enumerated().flatMap { i, p in ["\(p.0)", "\(p.1)", "p\(i)"] }
    ]
    for i in points.indices {
      let previous = "p\(max(0, i - 1))"
      commands += [
        ["ZSCORE", "pts", "p\(i)"], ["GEOPOS", "pts", "p\(i)"], ["GEOHASH", "pts", "p\(i)"],
        ["GEODIST", "pts", "p\(i)", previous],
      ]
    }
    let lines = try redis.run(commands)
    try #require(
      lines.count == 1 + 5 * points.count, "unexpected redis-cli output: \(lines.prefix(5))")
    #expect(lines[0] == "\(points.count)")

    var decoded: [Coordinate] = []
    for (i, (lon, lat)) in points.enumerated() {
      let reply = lines[1 + 5 * i..<6 + 5 * i].map { $0 }
      let score = try #require(RedisGeohash.score(longitude: lon, latitude: lat))
      let position = RedisGeohash.coordinate(score: score)
      decoded.append(position)
      #expect(Double(reply[0]).flatMap(UInt64.init(exactly:)) == score, "ZSCORE of \(lon), \(lat)")
      #expect(reply[1] == Self.human(position.longitude), "GEOPOS longitude of \(lon), \(lat)")
      #expect(reply[2] == Self.human(position.latitude), "GEOPOS latitude of \(lon), \(lat)")
      #expect(reply[3] == RedisGeohash.geohashString(score: score), "GEOHASH of \(lon), \(lat)")
      let other = decoded[max(0, i - 1)]
      let ours = Sphere.redis.distance(position, other)
      if sin((other.longitude * (Double.pi / 180) - position.longitude * (Double.pi / 180)) / 2)
        == 0
      {
        // Redis 7 takes a shortcut on one meridian: R·|Δφ|, equal to the haversine but for rounding.
        let meridian =
          Sphere.redis.radius
          * abs(other.latitude * (Double.pi / 180) - position.latitude * (Double.pi / 180))
        #expect(reply[4] == String(format: "%.4f", meridian), "GEODIST of \(lon), \(lat)")
        #expect(abs(Double(reply[4])! - ours) <= 1e-4)
      } else {
        #expect(reply[4] == String(format: "%.4f", ours), "GEODIST of \(lon), \(lat)")
      }
    }
  }

  @Test func rejectsWhatRedisRejects() throws {
    let redis = try RedisServer()
    defer { redis.stop() }
    let pairs: [(Double, Double)] = [
      (180, 85.05112878), (-180, -85.05112878), (180.0000001, 0), (-180.0000001, 0),
      (0, 85.05112879), (0, -85.05112879), (0, 90), (200, -90),
    ]
    // redis-cli follows an error reply with an empty line.
    let lines = try redis.run(pairs.map { ["GEOADD", "bad", "\($0.0)", "\($0.1)", "x"] })
      .filter { !$0.isEmpty }
    try #require(lines.count == pairs.count)
    for ((lon, lat), line) in zip(pairs, lines) {
      if RedisGeohash.isValid(longitude: lon, latitude: lat) {
        #expect(line == "1" || line == "0", "\(lon), \(lat)")
      } else {
        #expect(line == String(format: "ERR invalid longitude,latitude pair %f,%f", lon, lat))
      }
    }
  }

  /// Random points and the awkward ones: corners, the origin, cell edges and just below them.
  static func points() -> [(Double, Double)] {
    let maxLat = RedisGeohash.maximumLatitude
    var points: [(Double, Double)] = [
      (0, 0), (180, 0), (-180, 0), (0, maxLat), (0, -maxLat), (180, maxLat), (-180, maxLat),
      (180, -maxLat), (-180, -maxLat), (-0.0, -0.0), (1e-300, -1e-300), (179.99999999999997, 0),
      (13.361389, 38.115556), (15.087269, 37.502669),
    ]
    var rng = SplitMix64(seed: 61)
    let cells = Double(1 << RedisGeohash.step)
    for _ in 0..<100 {
      let k = Double(Int.random(in: 0...(1 << RedisGeohash.step), using: &rng))
      let lon = -180 + k * (360 / cells)
      let lat = -maxLat + k * (2 * maxLat / cells)
      points.append((lon, min(lat, maxLat)))
      points.append(
        (lon.nextDown < -180 ? lon : lon.nextDown, max(-maxLat, min(lat.nextDown, maxLat))))
    }
    for _ in 0..<300 {
      points.append(
        (
          Double.random(in: -180...180, using: &rng),
          Double.random(in: -maxLat...maxLat, using: &rng)
        ))
    }
    // Pairs on one meridian exercise GEODIST's shortcut.
    points += [(42.5, 10), (42.5, -70), (-180, 10), (-180, 80)]
    return points
  }

  /// `addReplyHumanLongDouble`: %.17Lf with trailing zeros (and a bare point) removed.
  static func human(_ value: Double) -> String {
    var text = String(format: "%.17f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
  }
}
