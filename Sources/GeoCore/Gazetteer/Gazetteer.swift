import Foundation
import Geocoding
import Geodesy

/// The offline geocoder: GeoNames' places of 500 people or more (data/gazetteer.tsv.gz), searched
/// by folded name and alternate name with region and country qualifiers, ranked by population;
/// reverse geocoding names the nearest place. Immutable once loaded, so shared freely.
public final class Gazetteer: Geocoder {
  public let name = "geonames"
  /// Reverse geocoding names no place farther than this, in metres (50 km by default: past that
  /// "the nearest town" stops describing where a point is).
  public let maximumReverseDistance: Double
  public static let defaultMaximumReverseDistance = 50_000.0
  let sphere = Sphere.earth
  let data: GazetteerData
  let keys: KeyIndex
  let grid: PlaceGrid

  /// Loads the data file: `locateData()` unless a file is named.
  public convenience init(
    contentsOf url: URL? = nil, maximumReverseDistance: Double = defaultMaximumReverseDistance
  ) throws(GazetteerError) {
    let file: URL
    if let url { file = url } else { file = try Self.locateData() }
    let compressed: Data
    do { compressed = try Data(contentsOf: file) } catch { throw .unreadable(path: file.path) }
    try self.init(gzip: [UInt8](compressed), maximumReverseDistance: maximumReverseDistance)
  }

  init(gzip: [UInt8], maximumReverseDistance: Double) throws(GazetteerError) {
    precondition(maximumReverseDistance > 0, "the reverse distance cap must be positive")
    self.maximumReverseDistance = maximumReverseDistance
    data = try GazetteerData(text: Gunzip.inflate(gzip))
    keys = KeyIndex(data)
    grid = PlaceGrid(lon: data.lon, lat: data.lat)
  }

  /// How many places, regions and countries it holds, and search keys it indexes.
  public var counts: (places: Int, regions: Int, countries: Int, keys: Int) {
    (data.count, data.regions.count, data.countryNames.countries.count, keys.count)
  }

  /// The countries it knows, by name and code.
  public var countryNames: CountryNames { data.countryNames }

  public func search(_ query: GeocodeQuery) async throws -> [Place] { try lookup(query) }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try nearest(lon: lon, lat: lat)
  }

  /// `reverse`, synchronously: the nearest place within `maximumDistance` metres
  /// (`maximumReverseDistance` unless given; `.infinity` for no cap), its confidence falling
  /// linearly from 1 at the place to 0 at the cap.
  public func nearest(
    lon: Double, lat: Double, within maximumDistance: Double? = nil
  ) throws(GeocodeError) -> Place? {
    try validateCoordinate(lon: lon, lat: lat)
    let cap = maximumDistance ?? maximumReverseDistance
    precondition(cap > 0, "the distance cap must be positive")
    guard
      let hit = grid.nearest(
        lon: lon, lat: lat, within: cap, sphere: sphere, places: (data.lon, data.lat))
    else { return nil }
    var place = place(hit.place, confidence: cap.isFinite ? max(0, 1 - hit.distance / cap) : 1)
    place.distance = hit.distance
    return place
  }

  /// The result for place `i`.
  func place(_ i: Int, confidence: Double) -> Place {
    let fields = data.fields(i)
    let country = data.countryNames.countries[Int(data.country[i])]
    let region = data.region[i] >= 0 ? data.regions[Int(data.region[i])].name : nil
    let name = fields[1]
    let label = ([name] + [region].compactMap { $0 }.filter { $0 != name } + [country.name])
      .joined(separator: ", ")
    return Place(
      lon: data.lon[i], lat: data.lat[i], label: label, confidence: confidence, provider: self.name,
      ids: ["geonameid": fields[0]], name: name, region: region, countryCode: country.code,
      country: country.name)
  }
}
