import Foundation

/// Countries by what people write in an address's country: a code ("PK", "USA"), a name in
/// English or their own language ("Deutschland", "Côte d'Ivoire"), or a common alias ("UK").
/// The gazetteer's own @countries keys (docs/GEOCODING.md: GeoNames' names, aliases, and
/// iso-codes' names in 158 languages), folded as its searches fold, so an import's country
/// means what the same words mean in a free-text search.
public struct CountryNames: Sendable {
  let countries: [Country]
  /// Folded name or code → the countries known by it (one each, as the data file is built).
  let keys: [String: [Int]]
  let byCode: [String: Int]

  /// The ISO 3166-1 alpha-2 code of the country `name` names; nil when it names none (or,
  /// were the data ever so built, several).
  public func code(for name: String) -> String? {
    guard let found = keys[Folding.fold(name)], found.count == 1 else { return nil }
    return countries[found[0]].code
  }

  /// The data file's countries alone (its first section), for a caller that geocodes through a
  /// service and needs no places: `Gazetteer.locateData()` unless a file is named.
  public static func load(contentsOf url: URL? = nil) throws(GazetteerError) -> CountryNames {
    let file: URL
    if let url { file = url } else { file = try Gazetteer.locateData() }
    let compressed: Data
    do { compressed = try Data(contentsOf: file) } catch { throw .unreadable(path: file.path) }
    var reader = LineReader(text: try Gunzip.inflate([UInt8](compressed)))
    return try CountryNames(&reader)
  }

  /// Reads the @countries section: code, alpha-3 code, name, '|'-separated folded keys.
  init(_ reader: inout LineReader) throws(GazetteerError) {
    var countries = [Country]()
    var keys = [String: [Int]]()
    var byCode = [String: Int]()
    for _ in 0..<(try reader.section("countries")) {
      let f = try reader.fields(4)
      byCode[f[0]] = countries.count
      for key in f[3].split(separator: "|") {
        keys[String(key), default: []].append(countries.count)
      }
      countries.append(Country(code: f[0], name: f[2]))
    }
    (self.countries, self.keys, self.byCode) = (countries, keys, byCode)
  }
}
