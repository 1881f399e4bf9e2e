import Foundation
import Geocoding
import Testing

@testable import Gazetteer

/// An import's country, by name or code, as `cardatlas geocode` reads the same words: never a
/// namesake in another country, and a country that names none reported, not dropped.
@Suite("Import: countries by name and by code")
struct ImportCountryTests {
  /// A row: the city, the country as written, and the country it means (nil: none).
  typealias Row = (city: String, country: String, code: String?)

  /// Cities of 15,000 people or more whose name is a city's in other countries too, each row
  /// naming a country other than the most populous namesake's (where a dropped country goes
  /// wrong), the country written as its name, its code, or another name it has (a native
  /// form, an alias), in turn.
  static func ambiguousRows(_ g: Gazetteer, count: Int) -> [Row] {
    let data = g.data
    var best: [String: [Int: (place: Int, population: UInt32)]] = [:]
    for i in 0..<data.count where data.population[i] >= 15_000 {
      let name = data.fields(i)[1]
      guard !name.contains(",") else { continue }
      let country = Int(data.country[i])
      let key = Folding.fold(name)
      if (best[key]?[country]?.population ?? 0) < data.population[i] {
        best[key, default: [:]][country] = (i, data.population[i])
      }
    }
    var otherNames: [Int: [String]] = [:]
    for (key, countries) in data.countryNames.keys {
      otherNames[countries[0], default: []].append(key)
    }
    var picks: [(name: String, country: Int, population: UInt32)] = []
    for countries in best.values where countries.count >= 2 {
      let ranked = countries.sorted {
        ($0.value.population, $0.key) > ($1.value.population, $1.key)
      }
      let (country, second) = (ranked[1].key, ranked[1].value)
      picks.append((data.fields(second.place)[1], country, second.population))
    }
    picks.sort { ($0.population, $0.name) > ($1.population, $1.name) }
    return picks.prefix(count).enumerated().map { n, pick in
      let country = data.countryNames.countries[pick.country]
      let primary = [Folding.fold(country.name), country.code.lowercased()]
      let others = (otherNames[pick.country] ?? []).filter { !primary.contains($0) }.sorted()
      let form =
        switch n % 3 {
        case 0: country.name
        case 1: country.code
        default: others.isEmpty ? country.name : others[others.count / 2]
        }
      // A form that is also a region's ("CA", "Georgia") reads as either in free text, where
      // an import's country column is a country (`countryNotRegion`): the English name then.
      let written = data.regionKeys[Folding.fold(form)] == nil ? form : country.name
      return (pick.name, written, country.code)
    }
    .filter { data.regionKeys[Folding.fold($0.country)] == nil }
  }

  /// The issue's cases, the aliases people write, and countries that name none.
  static let namedRows: [Row] = [
    ("Hyderabad", "Pakistan", "PK"), ("Birmingham", "United States", "US"),
    ("Barcelona", "Venezuela", "VE"), ("Brest", "France", "FR"),
    ("San Jose", "United States", "US"), ("Manhattan", "United States", "US"),
    ("Taizhou", "China", "CN"), ("Birmingham", "USA", "US"), ("Manchester", "UK", "GB"),
    ("Frankfurt", "Deutschland", "DE"), ("Abidjan", "Côte d'Ivoire", "CI"),
    ("Córdoba", "España", "ES"), ("Córdoba", "Argentina", "AR"), ("Campinas", "Brasil", "BR"),
    ("Atlantis", "Nowhere", nil), ("Paris", "Freedonia", nil), ("Lyon", "XX", nil),
  ]

  /// A country column's words that are also a region's: a country, where the free text
  /// "Lakewood, CA" may read California.
  static let countryNotRegion: [Row] = [("Lakewood", "CA", "CA"), ("Batumi", "Georgia", "GE")]

  @Test(
    "a few hundred cities that other countries also have: each placed in the country the row names, by name, code or alias, with the confidence `geocode` gives the same text; a country that names none is not-found, said why"
  )
  func countriesAreNeverDropped() throws {
    let g = try Gazetteer(contentsOf: dataFolder.appendingPathComponent(Gazetteer.fileName))
    let ambiguous = Self.ambiguousRows(g, count: 320)
    #expect(ambiguous.count >= 300)
    let rows = Self.countryNotRegion + Self.namedRows + ambiguous
    let scratch = try Scratch()
    defer { scratch.remove() }
    func cell(_ text: String) -> String {
      "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    var csv = "externalId,ownerEmail,firstName,city,country\n"
    for (n, row) in rows.enumerated() {
      csv += "r\(n),owner\(n)@example.com,Card \(n),\(cell(row.city)),\(cell(row.country))\n"
    }
    let input = try scratch.write("cities.csv", csv)
    let run = try runImport(
      [input, "--data", scratch.path("var"), "--report", scratch.path("report.csv")], in: scratch)
    #expect(run.status == 0, "\(run.err)")
    let report = try reportRows(scratch.path("report.csv"))
    try #require(report.count == rows.count)
    for (row, reported) in zip(Self.countryNotRegion, report) {
      let name = try #require(g.countryNames.countries.first { $0.code == row.code }?.name)
      #expect(reported["label"]?.hasSuffix(", \(name)") == true, "\(row): \(reported)")
    }
    var wrongCountry: [String] = []
    for (row, reported) in zip(rows, report).dropFirst(Self.countryNotRegion.count) {
      let text = "\(row.city), \(row.country)"
      guard let code = row.code else {
        #expect(reported["status"] == "not-found", "\(text): \(reported)")
        #expect(
          reported["reason"]
            == "no country is called \"\(row.country)\"; imported without a location", "\(text)")
        continue
      }
      // What `cardatlas geocode` answers for the same words.
      let geocoded = try #require(try g.lookup(GeocodeQuery(text, limit: 1)).first, "\(text)")
      #expect(geocoded.countryCode == code, "geocode: \(text) → \(geocoded.label)")
      let (lon, lat) = (Double(reported["lon"] ?? ""), Double(reported["lat"] ?? ""))
      if lon != geocoded.lon || lat != geocoded.lat {
        wrongCountry.append("\(text) → \(reported["label"] ?? "") (\(reported["status"] ?? ""))")
        continue
      }
      let confidence = try #require(Double(reported["confidence"] ?? ""), "\(text)")
      #expect(
        abs(confidence - geocoded.confidence) < 0.0005,
        "\(text): \(confidence) for \(geocoded.confidence) \(geocoded.label)")
      #expect(
        reported["status"] == (geocoded.confidence >= 0.5 ? "created" : "low-confidence"),
        "\(text)")
    }
    #expect(wrongCountry.isEmpty, "\(wrongCountry.count) placed elsewhere: \(wrongCountry)")
  }
}
