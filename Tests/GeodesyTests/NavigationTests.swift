import Geodesy
import Testing

@Suite struct NavigationTests {
  let sphere = Sphere.earth

  @Test func cardinalBearings() {
    #expect(sphere.initialBearing(fromLongitude: 0, latitude: 0, toLongitude: 0, latitude: 10) == 0)
    #expect(
      sphere.initialBearing(fromLongitude: 0, latitude: 0, toLongitude: 10, latitude: 0) == 90)
    #expect(
      sphere.initialBearing(fromLongitude: 0, latitude: 0, toLongitude: 0, latitude: -10) == 180)
    #expect(
      sphere.initialBearing(fromLongitude: 0, latitude: 0, toLongitude: -10, latitude: 0) == 270)
    // Across the antimeridian the short way is east.
    #expect(
      sphere.initialBearing(fromLongitude: 179, latitude: 0, toLongitude: -179, latitude: 0) == 90)
    #expect(sphere.initialBearing(fromLongitude: 5, latitude: 5, toLongitude: 5, latitude: 5) == 0)
  }

  @Test func londonToParisHeadsSouthEast() {
    // About 148.1° by the standard formula (Movable Type's calculator gives 148°07′).
    let b = sphere.initialBearing(
      fromLongitude: -0.1278, latitude: 51.5074, toLongitude: 2.3522, latitude: 48.8566)
    #expect(abs(b - 148.1) < 0.1)
  }

  @Test func bearingIsInRange() {
    var rng = SplitMix64(seed: 21)
    for _ in 0..<10_000 {
      let b = sphere.initialBearing(
        fromLongitude: Double.random(in: -180...180, using: &rng),
        latitude: Double.random(in: -90...90, using: &rng),
        toLongitude: Double.random(in: -180...180, using: &rng),
        latitude: Double.random(in: -90...90, using: &rng))
      #expect(b >= 0 && b < 360)
    }
  }

  @Test func destinationWrapsAndCrossesPoles() {
    let quarter = sphere.radius * Double.pi / 2
    let east = sphere.destination(longitude: 179, latitude: 0, bearing: 90, distance: quarter / 45)
    #expect(abs(east.longitude - -179) < 1e-9 && abs(east.latitude) < 1e-9)
    let overPole = sphere.destination(
      longitude: 10, latitude: 89, bearing: 0, distance: quarter / 45)
    #expect(abs(overPole.latitude - 89) < 1e-9)
    #expect(abs(overPole.longitude - -170) < 1e-9)
    let south = sphere.destination(longitude: 30, latitude: 0, bearing: 180, distance: quarter)
    #expect(abs(south.latitude - -90) < 1e-9)
    let same = sphere.destination(longitude: -45, latitude: 12, bearing: 77, distance: 0)
    #expect(abs(same.longitude - -45) < 1e-12 && abs(same.latitude - 12) < 1e-12)
    let west = sphere.destination(longitude: -179.5, latitude: -30, bearing: 270, distance: 100_000)
    #expect(west.longitude > 179 && west.longitude <= 180)
  }

  @Test func bearingAndDestinationRoundTrip() {
    var rng = SplitMix64(seed: 22)
    for _ in 0..<10_000 {
      let a = Coordinate(
        longitude: Double.random(in: -180...180, using: &rng),
        latitude: Double.random(in: -89...89, using: &rng))
      let b = Coordinate(
        longitude: Double.random(in: -180...180, using: &rng),
        latitude: Double.random(in: -89...89, using: &rng))
      let d = sphere.distance(a, b)
      // The bearing is ill-posed between antipodes.
      guard d < 0.99 * sphere.maximumDistance else { continue }
      let bearing = sphere.initialBearing(
        fromLongitude: a.longitude, latitude: a.latitude, toLongitude: b.longitude,
        latitude: b.latitude)
      let reached = sphere.destination(
        longitude: a.longitude, latitude: a.latitude, bearing: bearing, distance: d)
      #expect(sphere.distance(reached, b) < 1e-3, "from \(a) to \(b)")
      #expect(reached.longitude >= -180 && reached.longitude <= 180)
    }
  }
}
