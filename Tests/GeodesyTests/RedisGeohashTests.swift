import Geodesy
import Testing

/// Vectors from the Redis GEO documentation (GEOADD Sicily Palermo / Catania), checked against a
/// live server in `RedisServerTests`.
@Suite struct RedisGeohashTests {
  @Test func documentedScoresAndHashes() throws {
    let palermo = try #require(RedisGeohash.score(longitude: 13.361389, latitude: 38.115556))
    let catania = try #require(RedisGeohash.score(longitude: 15.087269, latitude: 37.502669))
    #expect(palermo == 3_479_099_956_230_698)
    #expect(catania == 3_479_447_370_796_909)
    #expect(RedisGeohash.geohashString(score: palermo) == "sqc8b49rny0")
    #expect(RedisGeohash.geohashString(score: catania) == "sqdtr74hyu0")
    let p = RedisGeohash.coordinate(score: palermo)
    let c = RedisGeohash.coordinate(score: catania)
    // GEOPOS prints 13.36138933897018433 38.11555639549629859 (%.17Lf of these doubles).
    #expect(abs(p.longitude - 13.361_389_338_970_184) < 1e-15)
    #expect(abs(p.latitude - 38.115_556_395_496_3) < 1e-14)
    // GEODIST Sicily Palermo Catania: 166274.1516 m.
    #expect(abs(Sphere.redis.distance(p, c) - 166_274.1516) < 5e-5)
  }

  @Test func limits() {
    #expect(RedisGeohash.isValid(longitude: 180, latitude: 85.05112878))
    #expect(RedisGeohash.isValid(longitude: -180, latitude: -85.05112878))
    #expect(!RedisGeohash.isValid(longitude: 180.000001, latitude: 0))
    #expect(!RedisGeohash.isValid(longitude: 0, latitude: 85.05112879))
    #expect(!RedisGeohash.isValid(longitude: .nan, latitude: 0))
    #expect(!RedisGeohash.isValid(longitude: 0, latitude: .nan))
    #expect(RedisGeohash.score(longitude: 0, latitude: 90) == nil)
  }

  @Test func edgesCarryPastFiftyTwoBits() {
    // (v - min) / (max - min) * 2^26 is 2^26 itself at the maximum, as in Redis.
    #expect(RedisGeohash.score(longitude: 180, latitude: 85.05112878) == 3 << 52)
    #expect(RedisGeohash.score(longitude: -180, latitude: -85.05112878) == 0)
    let corner = RedisGeohash.coordinate(score: 3 << 52)
    #expect(corner == Coordinate(longitude: 180, latitude: 85.05112878))
    #expect(RedisGeohash.geohashString(score: 3 << 52) == "bp05b5048p0")
  }

  @Test func decodedPointsStayInTheirCells() throws {
    var rng = SplitMix64(seed: 51)
    for _ in 0..<10_000 {
      let lon = Double.random(in: -180..<180, using: &rng)
      let lat = Double.random(in: -85.05112878..<85.05112878, using: &rng)
      let score = try #require(RedisGeohash.score(longitude: lon, latitude: lat))
      #expect(score < 1 << 52)
      let cell = RedisGeohash.cell(score: score)
      #expect(cell.contains(longitude: lon, latitude: lat))
      let p = RedisGeohash.coordinate(score: score)
      #expect(RedisGeohash.score(longitude: p.longitude, latitude: p.latitude) == score)
      #expect(abs(p.longitude - lon) <= 360.0 / Double(1 << 26))
      // GEOHASH's 50 meaningful bits are the standard 10-character geohash of the position.
      let standard = Geohash.encode(longitude: p.longitude, latitude: p.latitude, precision: 10)
      #expect(RedisGeohash.geohashString(score: score) == standard + "0")
    }
  }
}
