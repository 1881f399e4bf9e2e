import Foundation
import GRDB
import Geocoding
import SQLiteDomainStorage
import Store
import Synchronization
import Testing

@testable import GeocoderClients

@Suite("Geocode cache")
struct CacheTests {
  /// A geocoder that answers from a table and counts what it is asked.
  final class Counting: StructuredGeocoder {
    let name = "counting"
    private let counter = Atomic<Int>(0)
    var calls: Int { counter.load(ordering: .relaxed) }

    func search(_ query: GeocodeQuery) async throws -> [Place] {
      counter.add(1, ordering: .relaxed)
      return query.line.lowercased().contains("vaduz") ? [Self.vaduz] : []
    }

    func search(_ address: AddressParts) async throws -> [Place] {
      try await search(GeocodeQuery(address.text))
    }

    func reverse(lon: Double, lat: Double) async throws -> Place? {
      counter.add(1, ordering: .relaxed)
      return lon > 9 ? Self.vaduz : nil
    }

    static let vaduz = Place(
      lon: 9.52154, lat: 47.14151, label: "Vaduz, Liechtenstein",
      bbox: BoundingBox(minLon: 9.47, minLat: 47.09, maxLon: 9.56, maxLat: 47.18), confidence: 1,
      provider: "counting", ids: ["geonameid": "3042030"], name: "Vaduz", countryCode: "LI")
  }

  final class Clock: Sendable {
    let seconds = Mutex<Double>(1_800_000_000)
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func advance(_ s: Double) { seconds.withLock { $0 += s } }
  }

  func cache(_ clock: Clock) throws -> GeocodeCache {
    let database = try SQLiteGeocodeCacheFile(DatabaseQueue())
    return GeocodeCache(
      database, hitLifetime: .seconds(1000), missLifetime: .seconds(100), now: { clock.now })
  }

  @Test func hitsAndFoldedQueriesMakeNoRequest() async throws {
    let inner = Counting()
    let geocoder = CachingGeocoder(inner, cache: try cache(Clock()))
    let first = try await geocoder.search(GeocodeQuery("Vaduz,  Liechtenstein", countryCode: "li"))
    #expect(first == [Counting.vaduz])
    for text in ["vaduz, liechtenstein", " VADUZ ,Liechtenstein "] {
      #expect(try await geocoder.search(GeocodeQuery(text, countryCode: "LI")) == first)
    }
    #expect(inner.calls == 1)
    // Another country, region or limit is another request.
    _ = try await geocoder.search(GeocodeQuery("Vaduz, Liechtenstein"))
    _ = try await geocoder.search(GeocodeQuery("Vaduz, Liechtenstein", countryCode: "LI", limit: 1))
    _ = try await geocoder.search(
      GeocodeQuery("Vaduz, Liechtenstein", countryCode: "LI", region: "Oberland"))
    #expect(inner.calls == 4)
  }

  @Test func structuredQueriesAreKeyedByTheirParts() async throws {
    let inner = Counting()
    let geocoder = CachingGeocoder(inner, cache: try cache(Clock()))
    let vaduz = GeocodeQuery(countryCode: "LI", street: "Städtle 1", city: "Vaduz")
    #expect(try await geocoder.search(vaduz) == [Counting.vaduz])
    #expect(try await geocoder.search(vaduz) == [Counting.vaduz])
    #expect(inner.calls == 1)
    // Another street (the text of both is empty) is another request, with its own answer.
    let elsewhere = GeocodeQuery(countryCode: "LI", street: "Städtle 1", city: "Schaan")
    #expect(try await geocoder.search(elsewhere).isEmpty)
    #expect(inner.calls == 2)
  }

  @Test func reverseIsKeyedByRoundedCoordinates() async throws {
    let inner = Counting()
    let geocoder = CachingGeocoder(inner, cache: try cache(Clock()))
    #expect(try await geocoder.reverse(lon: 9.521541, lat: 47.141512) == Counting.vaduz)
    #expect(try await geocoder.reverse(lon: 9.521538, lat: 47.141509) == Counting.vaduz)
    #expect(inner.calls == 1)
    #expect(try await geocoder.reverse(lon: 9.5216, lat: 47.1415) == Counting.vaduz)
    #expect(inner.calls == 2)
    #expect(try await geocoder.reverse(lon: -0.000001, lat: 0) == nil)
    #expect(try await geocoder.reverse(lon: 0.000001, lat: 0) == nil)
    #expect(inner.calls == 3)
  }

  @Test func missesExpireSoonerThanHits() async throws {
    let clock = Clock()
    let inner = Counting()
    let geocoder = CachingGeocoder(inner, cache: try cache(clock))
    _ = try await geocoder.search(GeocodeQuery("Vaduz"))
    #expect(try await geocoder.search(GeocodeQuery("Atlantis")).isEmpty)
    clock.advance(99)
    _ = try await geocoder.search(GeocodeQuery("Vaduz"))
    _ = try await geocoder.search(GeocodeQuery("Atlantis"))
    #expect(inner.calls == 2)
    clock.advance(2)
    _ = try await geocoder.search(GeocodeQuery("Vaduz"))
    _ = try await geocoder.search(GeocodeQuery("Atlantis"))
    #expect(inner.calls == 3)
    clock.advance(1000)
    #expect(try await geocoder.cache.purgeExpired() == 2)
  }

  @Test func failuresAndBadQueriesAreNotKept() async throws {
    struct Failing: Geocoder {
      let name = "failing"
      func search(_ query: GeocodeQuery) async throws -> [Place] {
        throw GeocoderServiceError.timeout(host: "x")
      }
      func reverse(lon: Double, lat: Double) async throws -> Place? {
        throw GeocoderServiceError.timeout(host: "x")
      }
    }
    let cache = try cache(Clock())
    let geocoder = CachingGeocoder(Failing(), cache: cache)
    await #expect(throws: GeocoderServiceError.timeout(host: "x")) {
      try await geocoder.search(GeocodeQuery("Vaduz"))
    }
    await #expect(throws: GeocodeError.emptyQuery) { try await geocoder.search(GeocodeQuery(" ")) }
    #expect(try await cache.lookup(cache.key(provider: "failing", GeocodeQuery("Vaduz"))) == nil)
  }

  @Test func theCacheLivesInTheStoreAndSurvivesReopening() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("geocode-cache-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let inner = Counting()
    do {
      let store = try Store(directory: directory, migrations: SQLiteGeocodeCache.migrations)
      defer { store.close() }
      let geocoder = CachingGeocoder(inner, cache: GeocodeCache(SQLiteGeocodeCache(store)))
      _ = try await geocoder.search(AddressParts(city: "Vaduz", country: "LI"))
      _ = try await geocoder.search(AddressParts(city: " vaduz", country: "li"))
    }
    let store = try Store(directory: directory, migrations: SQLiteGeocodeCache.migrations)
    defer { store.close() }
    let geocoder = CachingGeocoder(inner, cache: GeocodeCache(SQLiteGeocodeCache(store)))
    #expect(
      try await geocoder.search(AddressParts(city: "VADUZ", country: "LI")) == [Counting.vaduz])
    #expect(inner.calls == 1)
  }

  @Test func keptAnswersAreWhatSearchGivesWithoutARequest() async throws {
    let inner = Counting()
    let geocoder = CachingGeocoder(inner, cache: try cache(Clock()))
    let hit = GeocodeQuery(countryCode: "LI", street: "Städtle 1", city: "Vaduz")
    let miss = GeocodeQuery("Nowhere")
    #expect(try await geocoder.search(hit) == [Counting.vaduz])
    #expect(try await geocoder.search(miss).isEmpty)
    let kept = await geocoder.keptAnswers([
      GeocodeQuery(countryCode: "li", street: " städtle  1", city: "VADUZ"), miss,
      GeocodeQuery("Schaan"), GeocodeQuery(" "),
    ])
    #expect(kept == [[Counting.vaduz], [], nil, nil])
    #expect(inner.calls == 2)
  }

  @Test func everyPartOfAPlaceComesBackFromTheCache() async throws {
    let cache = try cache(Clock())
    let full = Place(
      lon: -86.459, lat: 32.4640, label: "Prattville, Alabama, United States", bbox: nil,
      confidence: 0.25, provider: "nominatim", ids: ["osm_type": "R", "osm_id": "1"],
      name: "Prattville", region: "Alabama", countryCode: "US", country: "United States",
      postcode: "36067", distance: 12.5)
    let key = cache.key(provider: "nominatim", GeocodeQuery("Prattville"))
    try await cache.store([full, Counting.vaduz], for: key)
    #expect(try await cache.lookup(key) == [full, Counting.vaduz])
  }

  /// The key's folding, against its first definition (Foundation's replacing, split, joined):
  /// keys written by earlier versions are still found.
  @Test func foldingKeepsItsFirstDefinition() {
    func first(_ text: String) -> String {
      text.lowercased().replacingOccurrences(of: ",", with: ", ")
        .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        .replacingOccurrences(of: " ,", with: ",")
    }
    var random = SystemRandomNumberGenerator()
    let pieces = [
      "a", "B", "é", "Ü", " ", "  ", "\t", "\n", ",", " ,", ", ", "Straße", "9490", "ß",
    ]
    for _ in 0..<5_000 {
      let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in
        pieces.randomElement(using: &random)!
      }.joined()
      #expect(GeocodeCache.fold(text) == first(text), "\(text.debugDescription)")
    }
  }
}
