import Geodesy
import Testing

@Suite struct UnitVectorTests {
  @Test func hasUnitLength() {
    var rng = SplitMix64(seed: 3)
    for _ in 0..<10_000 {
      let v = UnitVector(
        longitude: Double.random(in: -180...180, using: &rng),
        latitude: Double.random(in: -90...90, using: &rng))
      #expect(abs(v.x * v.x + v.y * v.y + v.z * v.z - 1) < 1e-15)
    }
  }

  @Test func axes() {
    let origin = UnitVector(longitude: 0, latitude: 0)
    #expect(origin == UnitVector(x: 1, y: 0, z: 0))
    let east = UnitVector(longitude: 90, latitude: 0)
    #expect(abs(east.x) < 1e-15 && east.y == 1 && east.z == 0)
    let north = UnitVector(longitude: 0, latitude: 90)
    #expect(north.z == 1 && abs(north.x) < 1e-15)
    #expect(origin.chordSquared(to: origin) == 0)
    #expect(abs(origin.chordSquared(to: UnitVector(longitude: 180, latitude: 0)) - 4) < 1e-15)
  }
}
