import DomainSupport
import Foundation
import Geocoding
import Testing

@testable import GeocoderClients

@Suite("Geocoder clients' parsing of documented answers")
struct ParsingTests {
  func configuration(_ transport: StubTransport, email: String? = nil) -> ServiceConfiguration {
    ServiceConfiguration(
      baseURL: URL(string: "http://geocoder.test:8080/prefix")!, email: email,
      transport: transport)
  }

  @Test func photonSearchBuildsLabelsAndBoxes() async throws {
    let transport = StubTransport(body: try Fixture.data("photon-search.json"))
    let places = try await PhotonClient(configuration(transport)).search(
      GeocodeQuery("Berlin", limit: 3))
    #expect(transport.requests.last?.url.path == "/prefix/api")
    #expect(transport.lastQuery["q"] == "Berlin" && transport.lastQuery["limit"] == "3")
    #expect(places.count == 3)
    let berlin = places[0]
    #expect(berlin.lon == 13.3888599 && berlin.lat == 52.5170365)
    #expect(berlin.label == "Berlin, Germany")
    #expect(berlin.countryCode == "DE" && berlin.provider == "photon")
    #expect(
      berlin.ids == ["osm_type": "R", "osm_id": "62422", "osm_key": "place", "osm_value": "city"])
    // extent is [west, north, east, south]; bbox is [minLon, minLat, maxLon, maxLat].
    #expect(
      berlin.bbox
        == BoundingBox(
          minLon: 13.088345, minLat: 52.3382448, maxLon: 13.7611609, maxLat: 52.6755087))
    #expect(berlin.confidence == 1)
    #expect(
      places[1].label == "Berlin Olympic Stadium, Olympischer Platz 3, 14053 Berlin, Germany")
    #expect(places[1].confidence == 0.9)
    // No name: the street and number are the name.
    #expect(places[2].name == "Austrasse 15")
    #expect(places[2].label == "Austrasse 15, 9490 Vaduz, Oberland, Liechtenstein")
    #expect(places[2].bbox == nil)
    #expect(places[2].confidence < 0.5)
  }

  @Test func photonFiltersByCountry() async throws {
    let transport = StubTransport(body: try Fixture.data("photon-search.json"))
    let places = try await PhotonClient(configuration(transport)).search(
      GeocodeQuery("Austrasse 15", countryCode: "li", limit: 2))
    #expect(transport.lastQuery["limit"] == "8")
    #expect(places.map(\.countryCode) == ["LI"])
    #expect(places[0].confidence == 1)
  }

  @Test func photonReverse() async throws {
    let transport = StubTransport(body: try Fixture.data("photon-reverse.json"))
    let place = try #require(
      try await PhotonClient(configuration(transport)).reverse(lon: 9.5209, lat: 47.1392))
    #expect(transport.requests.last?.url.path == "/prefix/reverse")
    #expect(transport.lastQuery["lon"] == "9.5209" && transport.lastQuery["lat"] == "47.1392")
    #expect(place.label == "Städtle, 9490 Vaduz, Oberland, Liechtenstein")
    #expect(place.distance.map { $0 < 1 } == true)
    #expect(place.confidence == 1)
  }

  @Test func photonEmptyCollectionIsNoMatch() async throws {
    let transport = StubTransport(body: Data(#"{"type":"FeatureCollection","features":[]}"#.utf8))
    let client = PhotonClient(configuration(transport))
    #expect(try await client.search(GeocodeQuery("nowhere")).isEmpty)
    #expect(try await client.reverse(lon: 0, lat: 0) == nil)
  }

  @Test func peliasSearchKeepsItsLabelAndConfidence() async throws {
    let transport = StubTransport(body: try Fixture.data("pelias-search.json"))
    let places = try await PeliasClient(configuration(transport)).search(
      GeocodeQuery("Austrasse 15, Vaduz", countryCode: "LI", limit: 2))
    #expect(transport.requests.last?.url.path == "/prefix/v1/search")
    #expect(transport.lastQuery["text"] == "Austrasse 15, Vaduz")
    #expect(transport.lastQuery["boundary.country"] == "LI" && transport.lastQuery["size"] == "2")
    #expect(places.map(\.label) == ["Austrasse 15, Vaduz, Liechtenstein", "Vaduz, Liechtenstein"])
    #expect(places.map(\.confidence) == [1, 0.6])
    #expect(places[0].lon == 9.521896 && places[0].lat == 47.135702)
    #expect(places[0].ids["gid"] == "openstreetmap:address:way/123456")
    #expect(places[0].countryCode == "LI" && places[0].postcode == "9490")
    #expect(places[0].bbox == nil)
    #expect(
      places[1].bbox
        == BoundingBox(minLon: 9.4728, minLat: 47.0951, maxLon: 9.5631, maxLat: 47.1792))
    // Only country_a (alpha-3) is sent: no alpha-2 code is made up.
    #expect(places[1].countryCode == nil)
  }

  @Test func peliasStructuredAndReverse() async throws {
    let search = StubTransport(body: try Fixture.data("pelias-search.json"))
    _ = try await PeliasClient(configuration(search)).search(
      AddressParts(street: "Austrasse 15", city: "Vaduz", postcode: "9490", country: "LI"))
    #expect(search.requests.last?.url.path == "/prefix/v1/search/structured")
    #expect(
      search.lastQuery["address"] == "Austrasse 15" && search.lastQuery["locality"] == "Vaduz")
    #expect(search.lastQuery["postalcode"] == "9490" && search.lastQuery["country"] == "LI")

    let reverse = StubTransport(body: try Fixture.data("pelias-reverse.json"))
    let place = try #require(
      try await PeliasClient(configuration(reverse)).reverse(lon: 9.5209, lat: 47.1392))
    #expect(
      reverse.lastQuery["point.lon"] == "9.5209" && reverse.lastQuery["point.lat"] == "47.1392")
    #expect(place.label == "Kunstmuseum Liechtenstein, Vaduz, Liechtenstein")
    #expect(place.distance == 7)
    #expect(place.confidence == 0.9)
  }

  @Test func nominatimNormalizesStringsAndItsBoundingBox() async throws {
    let transport = StubTransport(body: try Fixture.data("nominatim-search.json"))
    let places = try await NominatimClient(configuration(transport, email: "ops@example.org"))
      .search(GeocodeQuery("Austrasse 15, Vaduz", countryCode: "LI", limit: 2))
    let request = try #require(transport.requests.last)
    #expect(request.url.path == "/prefix/search")
    #expect(request.headers["User-Agent"] == ServiceConfiguration.defaultUserAgent)
    #expect(
      transport.lastQuery == [
        "q": "Austrasse 15, Vaduz", "format": "jsonv2", "addressdetails": "1", "limit": "2",
        "countrycodes": "li", "email": "ops@example.org",
      ])
    #expect(places[0].lon == 9.5218961 && places[0].lat == 47.1357003)
    // boundingbox is [minLat, maxLat, minLon, maxLon].
    #expect(
      places[0].bbox
        == BoundingBox(minLon: 9.5217, minLat: 47.1356, maxLon: 9.5221, maxLat: 47.1358))
    #expect(places[0].ids == ["place_id": "13371", "osm_type": "way", "osm_id": "123456"])
    #expect(
      places[0].name == "Austrasse 15" && places[0].countryCode == "LI"
        && places[0].postcode == "9490")
    #expect(places[0].confidence == 1)
    // The street alone lacks the house number, and is half as important.
    #expect(abs(places[1].confidence - 2.0 / 3.0 * 0.5) < 1e-9)
    #expect(places[1].name == "Austrasse")
  }

  @Test func nominatimStructuredSendsFields() async throws {
    let transport = StubTransport(body: Data("[]".utf8))
    let places = try await NominatimClient(configuration(transport)).search(
      AddressParts(street: "Austrasse 15", city: "Vaduz", region: "", country: "Liechtenstein"))
    #expect(places.isEmpty)
    #expect(
      transport.lastQuery["street"] == "Austrasse 15" && transport.lastQuery["city"] == "Vaduz")
    #expect(transport.lastQuery["country"] == "Liechtenstein")
    #expect(transport.lastQuery["q"] == nil && transport.lastQuery["state"] == nil)
  }

  @Test func nominatimReverseMissIsNil() async throws {
    let transport = StubTransport(body: Data(#"{"error":"Unable to geocode"}"#.utf8))
    #expect(try await NominatimClient(configuration(transport)).reverse(lon: 0, lat: 0) == nil)
  }

  @Test func badRequestsAreRefusedBeforeAnyRequest() async throws {
    let transport = StubTransport(body: Data("[]".utf8))
    let clients: [any Geocoder] = [
      NominatimClient(configuration(transport)), PhotonClient(configuration(transport)),
      PeliasClient(configuration(transport)),
    ]
    for client in clients {
      await #expect(throws: GeocodeError.emptyQuery) { try await client.search(GeocodeQuery("  ")) }
      await #expect(throws: GeocodeError.badCoordinate(longitude: 200, latitude: 0)) {
        try await client.reverse(lon: 200, lat: 0)
      }
    }
    #expect(transport.requests.isEmpty)
  }

  @Test func providerErrorsAreClear() async throws {
    let nominatim = StubTransport(
      status: 400,
      body: Data(#"{"error":{"code":400,"message":"Parameter 'lat' missing."}}"#.utf8))
    await #expect(
      throws: GeocoderServiceError.http(
        host: "geocoder.test:8080", status: 400, retryAfter: nil,
        message: "Parameter 'lat' missing.")
    ) { try await NominatimClient(configuration(nominatim)).reverse(lon: 1, lat: 1) }
    let pelias = StubTransport(
      status: 400, body: Data(#"{"geocoding":{"errors":["missing param 'text'"]}}"#.utf8))
    await #expect(
      throws: GeocoderServiceError.http(
        host: "geocoder.test:8080", status: 400, retryAfter: nil, message: "missing param 'text'")
    ) { try await PeliasClient(configuration(pelias)).search(GeocodeQuery("x")) }
    let garbage = StubTransport(body: Data("<html>".utf8))
    await #expect(
      throws: GeocoderServiceError.badResponse(
        host: "geocoder.test:8080", reason: "not JSON: <html>")
    ) {
      try await PhotonClient(configuration(garbage)).search(GeocodeQuery("x"))
    }
  }

  @Test func retryAfterSpellings() {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
    #expect(RetryAfter.seconds("120", now: now) == 120)
    #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == 30)
    #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:00 GMT", now: now) == 0)
    #expect(RetryAfter.seconds("soon", now: now) == nil)
  }
}
