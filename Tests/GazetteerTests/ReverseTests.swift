import Foundation
import Geocoding
import Testing

@testable import Gazetteer

/// Reverse geocoding against a brute-force nearest over every place.
@Suite("Gazetteer reverse")
struct ReverseTests {
  /// The nearest place by scanning all, ties to the lower place number as the grid breaks them.
  func bruteForce(_ g: Gazetteer, lon: Double, lat: Double) -> (place: Int, distance: Double) {
    var best = (place: -1, distance: Double.infinity)
    for i in 0..<g.data.count {
      let d = metres(lon, lat, g.data.lon[i], g.data.lat[i])
      if d < best.distance { best = (i, d) }
    }
    return best
  }

  /// Points worldwide: uniform on the sphere, near places, astride the antimeridian, near
  /// and at the poles.
  static func points() -> [(lon: Double, lat: Double)] {
    var random = SeededGenerator(state: 24)
    var points = [(lon: Double, lat: Double)]()
    for _ in 0..<80 {
      let z = random.double(in: -1...1)
      points.append((random.double(in: -180...180), asin(z) * 180 / .pi))
    }
    for _ in 0..<40 {
      points.append(
        (
          random.double(in: 179...180) * random.sign(),
          random.double(in: -70...70)
        ))
    }
    for _ in 0..<30 {
      points.append(
        (
          random.double(in: -180...180),
          random.double(in: 80...90) * random.sign()
        ))
    }
    points += [
      (180, -16.5), (-180, -16.5), (180, 65.5), (-180, 65.5), (0, 90), (0, -90), (123, 90),
    ]
    points += [(179.999, -18.0), (-179.999, -18.0), (-179.9, 65.0), (179.9, 68.9)]
    return points
  }

  @Test("Uncapped: the nearest place everywhere, the antimeridian and the poles included")
  func matchesBruteForce() throws {
    let g = try Shared.gazetteer()
    var random = SeededGenerator(state: 7)
    var points = Self.points()
    for _ in 0..<40 {  // near places, where neighbours are dense
      let i = random.int(below: g.data.count)
      points.append(
        (
          min(180, max(-180, g.data.lon[i] + random.double(in: -0.2...0.2))),
          min(90, max(-90, g.data.lat[i] + random.double(in: -0.2...0.2)))
        ))
    }
    for p in points {
      let expected = bruteForce(g, lon: p.lon, lat: p.lat)
      let found = try #require(try g.nearest(lon: p.lon, lat: p.lat, within: .infinity))
      #expect(found.ids["geonameid"] == g.data.fields(expected.place)[0], "at \(p)")
      #expect(found.distance == expected.distance, "at \(p)")
    }
  }

  @Test("Capped at 50 km by default: nil exactly when no place is that near")
  func cap() throws {
    let g = try Shared.gazetteer()
    var someNil = false
    var someFound = false
    for p in Self.points() {
      let expected = bruteForce(g, lon: p.lon, lat: p.lat)
      let found = try g.nearest(lon: p.lon, lat: p.lat)
      if expected.distance <= Gazetteer.defaultMaximumReverseDistance {
        #expect(found?.ids["geonameid"] == g.data.fields(expected.place)[0], "at \(p)")
        someFound = true
      } else {
        #expect(found == nil, "at \(p)")
        someNil = true
      }
    }
    #expect(someNil && someFound)
  }

  @Test("Names the place, its region and country; confidence falls with distance")
  func namesPlace() async throws {
    let geocoder: any Geocoder = try Shared.gazetteer()
    let place = try #require(try await geocoder.reverse(lon: -86.46, lat: 32.46))
    #expect(place.name == "Prattville" && place.region == "Alabama" && place.countryCode == "US")
    #expect(place.label == "Prattville, Alabama, United States")
    let distance = try #require(place.distance)
    #expect(distance > 300 && distance < 600)
    #expect(abs(place.confidence - (1 - distance / 50_000)) < 1e-12)
    // Vanua Levu (Fiji, 179.3° E) from a point across the antimeridian, 80-odd km away.
    let g = try Shared.gazetteer()
    #expect(try g.nearest(lon: -179.9, lat: -16.7) == nil, "nothing within 50 km")
    let fiji = try #require(try g.nearest(lon: -179.9, lat: -16.7, within: 200_000))
    #expect(fiji.countryCode == "FJ" && fiji.distance! < 100_000)
  }

  @Test(
    "NaN, infinite and out-of-range coordinates are refused",
    arguments: [
      (Double.nan, 0.0), (0, .nan), (.infinity, 0), (0, -.infinity), (180.0001, 0), (-181, 0),
      (0, 90.0001), (0, -91),
    ])
  func badCoordinates(_ lon: Double, _ lat: Double) async throws {
    let g = try Shared.gazetteer()
    #expect(throws: GeocodeError.self) { try g.nearest(lon: lon, lat: lat) }
    await #expect(throws: GeocodeError.self) { try await g.reverse(lon: lon, lat: lat) }
  }
}
