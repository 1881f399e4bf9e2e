import Foundation
import GRDB
import Geocoding
import Geodesy
import SQLiteDomainStorage
import Testing

@testable import GeocoderClients

/// CARDATLAS_NOMINATIM_URL, when set and not empty.
let nominatimURL = ProcessInfo.processInfo.environment["CARDATLAS_NOMINATIM_URL"].flatMap {
  $0.isEmpty ? nil : URL(string: $0)
}

/// Against the real Nominatim of ../shared/nominatim (Liechtenstein and part of Autauga County),
/// at CARDATLAS_NOMINATIM_URL; `make test` starts it (scripts/test-nominatim.sh).
@Suite(
  "Nominatim client against a real Nominatim",
  .enabled(
    if: nominatimURL != nil,
    "CARDATLAS_NOMINATIM_URL is unset: start ../shared/nominatim/setup-nominatim.sh and set it"))
struct NominatimTests {
  static let baseURL = nominatimURL

  func client(_ transport: any HTTPTransport = URLSessionTransport()) -> NominatimClient {
    NominatimClient(
      ServiceConfiguration(
        baseURL: Self.baseURL!, email: "tests@cardatlas.invalid", transport: transport))
  }

  /// Where Nominatim's own data puts an address: its plain `format=json` answer, read without
  /// our client's parsing.
  func reference(_ text: String) async throws -> (lon: Double, lat: Double) {
    var components = URLComponents(url: Self.baseURL!, resolvingAgainstBaseURL: false)!
    components.path += "/search"
    components.queryItems = [
      URLQueryItem(name: "q", value: text), URLQueryItem(name: "format", value: "json"),
      URLQueryItem(name: "limit", value: "1"),
    ]
    let response = try await URLSessionTransport().get(
      components.url!, headers: [:], timeout: .seconds(10))
    let list = try #require(
      try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]])
    let first = try #require(list.first, "Nominatim has no \(text)")
    return (
      Double(try #require(first["lon"] as? String))!, Double(try #require(first["lat"] as? String))!
    )
  }

  static let addresses = [
    "Austrasse 15, Vaduz", "Städtle 32, Vaduz", "Herrengasse 7, Vaduz", "Spaniagasse 17, Vaduz",
    "Alvierweg 10, 9490 Vaduz", "Landstrasse 115, Vaduz", "Sankt Florinsgasse 1, Vaduz",
  ]

  @Test(arguments: addresses)
  func forwardLandsOnNominatimsOwnData(_ address: String) async throws {
    let expected = try await reference(address)
    let best = try #require(
      try await client().search(GeocodeQuery(address, countryCode: "LI")).first)
    let metres = Sphere.earth.distance(
      longitude: best.lon, latitude: best.lat, longitude: expected.lon, latitude: expected.lat)
    #expect(metres < 30, "\(address): \(best.label) is \(metres) m off")
    #expect(best.countryCode == "LI" && best.provider == "nominatim")
    #expect(best.confidence > 0.9, "\(address): \(best.label) \(best.confidence)")
    let bbox = try #require(best.bbox)
    #expect(bbox.minLon <= best.lon && best.lon <= bbox.maxLon)
    #expect(bbox.minLat <= best.lat && best.lat <= bbox.maxLat)
    #expect(best.ids["osm_id"] != nil && best.ids["osm_type"] != nil)
  }

  @Test func reverseNamesTheStreetAndTown() async throws {
    let house = try await reference("Austrasse 15, Vaduz")
    let place = try #require(try await client().reverse(lon: house.lon, lat: house.lat))
    #expect(place.label.contains("Austrasse"), "\(place.label)")
    #expect(place.label.contains("Vaduz"), "\(place.label)")
    #expect(place.countryCode == "LI")
    #expect(try #require(place.distance) < 30)
  }

  @Test func structuredSearch() async throws {
    let expected = try await reference("Austrasse 15, Vaduz")
    let best = try #require(
      try await client().search(
        AddressParts(street: "Austrasse 15", city: "Vaduz", country: "LI")
      ).first)
    #expect(
      Sphere.earth.distance(
        longitude: best.lon, latitude: best.lat, longitude: expected.lon, latitude: expected.lat)
        < 30)
    #expect(best.label.contains("Austrasse"))
    // A GeocodeQuery of parts (what an import's columns make) is the same structured search.
    let parts = try #require(
      try await client().search(
        GeocodeQuery(countryCode: "LI", limit: 1, street: "Austrasse 15", city: "Vaduz")
      ).first)
    #expect(parts.lon == best.lon && parts.lat == best.lat)
  }

  @Test func regionAndCountry() async throws {
    let places = try await client().search(
      GeocodeQuery("Prattville", countryCode: "US", region: "Alabama"))
    let best = try #require(places.first)
    #expect(best.label.hasPrefix("Prattville") && best.countryCode == "US")
    #expect(abs(best.lon - -86.46) < 0.05 && abs(best.lat - 32.46) < 0.05)
    // The country filters: there is no Prattville in Liechtenstein.
    #expect(try await client().search(GeocodeQuery("Prattville", countryCode: "LI")).isEmpty)
  }

  @Test func noMatchIsEmptyAndAReverseMissIsNil() async throws {
    #expect(try await client().search(GeocodeQuery("Qwxzyv Plorkstrasse 99999")).isEmpty)
    // The middle of the South Atlantic: nothing in the extract is near.
    #expect(try await client().reverse(lon: -20, lat: -40) == nil)
  }

  @Test func badParametersAreAClearError() async throws {
    // Nominatim answers 400 to a reverse without a longitude.
    let transport = CountingTransport()
    let configuration = ServiceConfiguration(baseURL: Self.baseURL!, transport: transport)
    do {
      _ = try await configuration.get("reverse", [("format", "jsonv2"), ("lat", "47.1")])
      Issue.record("a reverse without lon succeeded")
    } catch let error as GeocoderServiceError {
      guard case .http(_, 400, _, let message) = error else { throw error }
      #expect(!message.isEmpty)
      #expect(!error.isTransient)
    }
  }

  @Test func aRepeatedQueryWithTheCacheMakesNoRequest() async throws {
    let transport = CountingTransport()
    let cache = GeocodeCache(try SQLiteGeocodeCacheFile(DatabaseQueue()))
    let geocoder = CachingGeocoder(
      PoliteGeocoder(client(transport), host: Self.baseURL!.host!), cache: cache,
      cacheProvider: "nominatim@test")
    let first = try await geocoder.search(GeocodeQuery("Austrasse 15, Vaduz"))
    let reverse = try await geocoder.reverse(lon: 9.5219, lat: 47.1357)
    let miss = try await geocoder.search(GeocodeQuery("Qwxzyv Plorkstrasse 99999"))
    #expect(!first.isEmpty && reverse != nil && miss.isEmpty)
    #expect(transport.count == 3)
    #expect(try await geocoder.search(GeocodeQuery("austrasse 15 ,  VADUZ")) == first)
    #expect(try await geocoder.reverse(lon: 9.521901, lat: 47.135699) == reverse)
    #expect(try await geocoder.search(GeocodeQuery("Qwxzyv Plorkstrasse 99999")).isEmpty)
    #expect(transport.count == 3)
  }
}
