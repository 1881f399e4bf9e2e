import Geodesy
import Testing

@Suite struct CoordinateTests {
  @Test func acceptsTheEdges() throws {
    for (lon, lat) in [(-180.0, -90.0), (180, 90), (0, 0), (-180, 90), (180, -90)] {
      let c = try Coordinate.validated(longitude: lon, latitude: lat)
      #expect(c == Coordinate(longitude: lon, latitude: lat))
    }
  }

  @Test func rejectsNonFinite() {
    for (lon, lat) in [
      (Double.nan, 0.0), (0, .nan), (.infinity, 0), (-.infinity, 0), (0, .infinity),
      (0, -.infinity),
    ] {
      #expect {
        try Coordinate.validated(longitude: lon, latitude: lat)
      } throws: { error in
        guard case .notFinite = error as? CoordinateError else { return false }
        return true
      }
    }
  }

  @Test func rejectsOutOfRange() {
    #expect(throws: CoordinateError.longitudeOutOfRange(180.0000001)) {
      try Coordinate.validated(longitude: 180.0000001, latitude: 0)
    }
    #expect(throws: CoordinateError.longitudeOutOfRange(-180.0000001)) {
      try Coordinate.validated(longitude: -180.0000001, latitude: 0)
    }
    #expect(throws: CoordinateError.latitudeOutOfRange(-90.0000001)) {
      try Coordinate.validated(longitude: 0, latitude: -90.0000001)
    }
    #expect(throws: CoordinateError.latitudeOutOfRange(90.0000001)) {
      try Coordinate.validated(longitude: 0, latitude: 90.0000001)
    }
  }

  @Test func describesErrors() {
    #expect(
      CoordinateError.latitudeOutOfRange(91).description == "latitude 91.0 is out of range -90..90")
    #expect(
      CoordinateError.longitudeOutOfRange(-181).description
        == "longitude -181.0 is out of range -180..180")
  }
}
