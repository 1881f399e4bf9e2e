import Geodesy
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct SphereTests {
  @Test func londonToParis() {
    // The usual city-centre coordinates: about 343.5 km on the mean-radius sphere.
    let d = Sphere.earth.distance(
      longitude: -0.1278, latitude: 51.5074, longitude: 2.3522, latitude: 48.8566)
    #expect(abs(d - 343_556.5) < 1)
  }

  @Test func antipodesAreHalfACircumference() {
    for sphere in [Sphere.earth, Sphere.redis] {
      // Haversine's asin is ill-conditioned next to 1: one ulp in `a` is ~0.2 m here (Redis has
      // the same error, which is why Sphere keeps its formula).
      let d = sphere.distance(longitude: 30, latitude: 40, longitude: -150, latitude: -40)
      #expect(abs(d - Double.pi * sphere.radius) < 0.5)
      #expect(sphere.maximumDistance == Double.pi * sphere.radius)
      let poles = sphere.distance(longitude: 0, latitude: 90, longitude: 0, latitude: -90)
      #expect(abs(poles - sphere.maximumDistance) < 1e-6)
    }
  }

  @Test func samePointIsZero() {
    #expect(
      Sphere.earth.distance(longitude: 12.5, latitude: -33, longitude: 12.5, latitude: -33) == 0)
    let a = Coordinate(longitude: 179.9, latitude: 10)
    #expect(Sphere.earth.distance(a, a) == 0)
  }

  @Test func oneDegreeOfLatitude() {
    let d = Sphere.earth.distance(longitude: 5, latitude: 10, longitude: 5, latitude: 11)
    #expect(abs(d - Sphere.earth.radius * Double.pi / 180) < 1e-6)
  }

  @Test func distanceFromAgreesBitForBit() {
    var rng = SplitMix64(seed: 7)
    let from = Sphere.redis.distances(fromLongitude: 13.4, latitude: 52.5)
    for _ in 0..<1_000 {
      let lon = Double.random(in: -180...180, using: &rng)
      let lat = Double.random(in: -90...90, using: &rng)
      #expect(
        from.distance(longitude: lon, latitude: lat)
          == Sphere.redis.distance(longitude: 13.4, latitude: 52.5, longitude: lon, latitude: lat))
    }
  }

  @Test func chordRoundTrip() {
    let sphere = Sphere.earth
    var rng = SplitMix64(seed: 11)
    // From 1 m up, relative error; the chord loses relative precision for tiny distances.
    for _ in 0..<10_000 {
      let d = exp(Double.random(in: 0...log(20_000_000), using: &rng))
      let back = sphere.distance(fromChordSquared: sphere.chordSquared(forDistance: d))
      #expect(abs(back - d) <= 1e-9 * d, "distance \(d)")
    }
    for _ in 0..<1_000 {
      let d = Double.random(in: 0...1, using: &rng)
      let back = sphere.distance(fromChordSquared: sphere.chordSquared(forDistance: d))
      #expect(abs(back - d) <= 1e-9, "distance \(d)")
    }
  }

  @Test func chordEdges() {
    let sphere = Sphere.earth
    #expect(sphere.chordSquared(forDistance: 0) == 0)
    #expect(sphere.chordSquared(forDistance: -5) == 0)
    #expect(sphere.chordSquared(forDistance: sphere.maximumDistance) == 4)
    #expect(sphere.chordSquared(forDistance: 1e12) == 4)
    #expect(sphere.distance(fromChordSquared: 4) == sphere.maximumDistance)
    #expect(sphere.distance(fromChordSquared: 5) == sphere.maximumDistance)
    #expect(sphere.distance(fromChordSquared: -1) == 0)
  }

  @Test func chordMatchesUnitVectors() {
    var rng = SplitMix64(seed: 12)
    for _ in 0..<1_000 {
      let (lon1, lat1) = (
        Double.random(in: -180...180, using: &rng), Double.random(in: -90...90, using: &rng)
      )
      let (lon2, lat2) = (
        Double.random(in: -180...180, using: &rng), Double.random(in: -90...90, using: &rng)
      )
      let c2 = UnitVector(longitude: lon1, latitude: lat1).chordSquared(
        to: UnitVector(longitude: lon2, latitude: lat2))
      let d = Sphere.earth.distance(
        longitude: lon1, latitude: lat1, longitude: lon2, latitude: lat2)
      #expect(abs(Sphere.earth.distance(fromChordSquared: c2) - d) < 1e-3)
    }
  }
}
