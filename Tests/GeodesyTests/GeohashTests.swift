import Geodesy
import Testing

@Suite struct GeohashTests {
  @Test func knownVectors() {
    #expect(Geohash.encode(longitude: -5.6, latitude: 42.6, precision: 5) == "ezs42")
    #expect(Geohash.encode(longitude: 10.40744, latitude: 57.64911, precision: 11) == "u4pruydqqvj")
    #expect(Geohash.encode(longitude: -0.1278, latitude: 51.5074, precision: 6) == "gcpvj0")
    #expect(Geohash.encode(longitude: -122.4194, latitude: 37.7749, precision: 5) == "9q8yy")
    #expect(Geohash.encode(longitude: 0, latitude: 0, precision: 12) == "s00000000000")
    #expect(Geohash.encode(longitude: 180, latitude: 90, precision: 12) == "zzzzzzzzzzzz")
    #expect(Geohash.encode(longitude: -180, latitude: -90, precision: 3) == "000")
  }

  @Test func decodesWikipediaExample() throws {
    // Wikipedia: "ezs42" is latitude 42.605 ± 0.022, longitude -5.603 ± 0.022.
    let cell = try #require(Geohash.decode("ezs42"))
    #expect(cell.minLongitude == -5.625 && cell.maxLongitude == -5.58105_46875)
    #expect(cell.minLatitude == 42.58300_78125 && cell.maxLatitude == 42.626953125)
    #expect(abs(cell.center.latitude - 42.605) < 0.001)
    #expect(abs(cell.center.longitude - -5.603) < 0.001)
    #expect(Geohash.decode("EZS42") == cell)
  }

  @Test func rejectsInvalidHashes() {
    for bad in ["", "a", "ezs4i", "ezs42ezs42ezs", "ez s4", "ézs"] {
      #expect(Geohash.decode(bad) == nil, "\(bad)")
      #expect(Geohash.neighbors(bad) == nil, "\(bad)")
    }
  }

  @Test func roundTrips() throws {
    var rng = SplitMix64(seed: 31)
    for _ in 0..<5_000 {
      let lon = Double.random(in: -180...180, using: &rng)
      let lat = Double.random(in: -90...90, using: &rng)
      let precision = Int.random(in: 1...12, using: &rng)
      let hash = Geohash.encode(longitude: lon, latitude: lat, precision: precision)
      #expect(hash.count == precision)
      let cell = try #require(Geohash.decode(hash))
      #expect(cell.contains(longitude: lon, latitude: lat))
      let c = cell.center
      #expect(
        Geohash.encode(longitude: c.longitude, latitude: c.latitude, precision: precision) == hash)
      // A prefix names the enclosing cell.
      let shorter = Geohash.encode(longitude: lon, latitude: lat, precision: max(1, precision - 1))
      #expect(hash.hasPrefix(shorter))
    }
  }

  @Test func cellsIncludeWestAndSouthEdges() throws {
    let cell = try #require(Geohash.decode("ezs42"))
    let hash = Geohash.encode(
      longitude: cell.minLongitude, latitude: cell.minLatitude, precision: 5)
    #expect(hash == "ezs42")
    #expect(
      Geohash.encode(longitude: cell.maxLongitude, latitude: cell.minLatitude, precision: 5)
        != "ezs42")
  }

  @Test func neighboursAtPrecisionOne() throws {
    // "0" is the south-west corner cell: west wraps to "p"; south is clamped to the cell itself.
    let n = try #require(Geohash.neighbors("0"))
    #expect(n.west == "p" && n.east == "1" && n.north == "2")
    #expect(n.south == "0" && n.southWest == "p" && n.southEast == "1")
    #expect(n.northWest == "r" && n.northEast == "3")
    #expect(
      n.all == [
        n.north, n.northEast, n.east, n.southEast, n.south, n.southWest, n.west, n.northWest,
      ])
  }

  @Test func neighboursAreAdjacent() throws {
    var rng = SplitMix64(seed: 32)
    var points: [(Double, Double)] = []
    for _ in 0..<2_000 {
      points.append(
        (Double.random(in: -180...180, using: &rng), Double.random(in: -90...90, using: &rng)))
    }
    points += [(180, 0), (-180, 0), (179.99, 89.99), (-180, -90), (0, 90), (0, -90)]
    for (lon, lat) in points {
      let precision = Int.random(in: 1...12, using: &rng)
      let hash = Geohash.encode(longitude: lon, latitude: lat, precision: precision)
      let cell = try #require(Geohash.decode(hash))
      let n = try #require(Geohash.neighbors(hash))
      let width = cell.maxLongitude - cell.minLongitude
      let height = cell.maxLatitude - cell.minLatitude
      let atNorthPole = cell.maxLatitude == 90
      let atSouthPole = cell.minLatitude == -90
      let expected: [(String, Double, Double)] = [
        (n.north, 0, atNorthPole ? 0 : 1), (n.northEast, 1, atNorthPole ? 0 : 1), (n.east, 1, 0),
        (n.southEast, 1, atSouthPole ? 0 : -1), (n.south, 0, atSouthPole ? 0 : -1),
        (n.southWest, -1, atSouthPole ? 0 : -1), (n.west, -1, 0),
        (n.northWest, -1, atNorthPole ? 0 : 1),
      ]
      for (neighbour, dx, dy) in expected {
        #expect(neighbour.count == precision)
        let other = try #require(Geohash.decode(neighbour))
        var west = cell.minLongitude + dx * width
        if west >= 180 { west -= 360 }
        if west < -180 { west += 360 }
        #expect(other.minLongitude == west, "\(hash) → \(neighbour)")
        #expect(other.minLatitude == cell.minLatitude + dy * height, "\(hash) → \(neighbour)")
      }
      if atNorthPole { #expect(n.north == hash) }
      if atSouthPole { #expect(n.south == hash) }
    }
  }
}
