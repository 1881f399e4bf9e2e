import Foundation
import GeocoderClients
import Geocoding
import PostgresDomainStorage
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Synchronization
import Testing

/// `PostgresGeocodeCache` under `GeocodeCache`: two stores on one database stand for two nodes.
@Suite("Geocode cache over PostgreSQL", .serialized)
struct PostgresGeocodeCacheTests {
  /// A geocoder that knows Vaduz and counts what it is asked.
  final class Counting: Geocoder {
    let name = "counting"
    private let counter = Atomic<Int>(0)
    var calls: Int { counter.load(ordering: .relaxed) }

    func search(_ query: GeocodeQuery) async throws -> [Place] {
      counter.add(1, ordering: .relaxed)
      return query.line.lowercased().contains("vaduz") ? [Self.vaduz] : []
    }

    func reverse(lon: Double, lat: Double) async throws -> Place? {
      counter.add(1, ordering: .relaxed)
      return nil
    }

    static let vaduz = Place(
      lon: 9.52154, lat: 47.14151, label: "Vaduz, Liechtenstein", bbox: nil, confidence: 1,
      provider: "counting", ids: ["geonameid": "3042030"], name: "Vaduz", countryCode: "LI")
  }

  @Test(
    "an answer one node asked for is found by another without asking the geocoder; a miss is kept too; a batch look-up answers each key in order; expired answers are not found and are purged"
  )
  func sharedBetweenNodes() async throws {
    let database = try await TestDatabase.make()
    let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    func cache() async throws -> (PostgresStore, GeocodeCache) {
      let store = try await PostgresStore(
        location: database.location, migrations: PostgresGeocodeCache.migrations,
        logger: TestDatabase.logger)
      return (
        store,
        GeocodeCache(
          PostgresGeocodeCache(store: store, logger: TestDatabase.logger),
          hitLifetime: .seconds(1000), missLifetime: .seconds(100),
          now: { now.withLock { $0 } })
      )
    }
    let (storeA, cacheA) = try await cache()
    let (storeB, cacheB) = try await cache()
    let inner = Counting()
    let nodeA = CachingGeocoder(inner, cache: cacheA)
    let nodeB = CachingGeocoder(inner, cache: cacheB)
    let vaduz = GeocodeQuery("Vaduz, Liechtenstein")
    let nowhere = GeocodeQuery("Nowhere at all")
    #expect(try await nodeA.search(vaduz) == [Counting.vaduz])
    #expect(try await nodeA.search(nowhere).isEmpty)
    #expect(inner.calls == 2)
    #expect(try await nodeB.search(GeocodeQuery(" vaduz ,  LIECHTENSTEIN")) == [Counting.vaduz])
    #expect(try await nodeB.search(nowhere).isEmpty)
    #expect(inner.calls == 2, "node B asked nothing of the geocoder")
    let kept = await nodeB.keptAnswers([GeocodeQuery("Schaan"), nowhere, vaduz])
    #expect(kept == [nil, [], [Counting.vaduz]])
    // Past the miss's lifetime, not its hit's: the miss is asked again, and purged.
    now.withLock { $0 += 150 }
    #expect(await nodeB.keptAnswers([nowhere, vaduz]) == [nil, [Counting.vaduz]])
    #expect(try await cacheA.purgeExpired() == 1)
    now.withLock { $0 += 1000 }
    #expect(try await cacheB.purgeExpired() == 1)
    let rows = try await database.connect { connection in
      try await connection.query(
        "SELECT count(*)::bigint FROM geocode_cache", logger: TestDatabase.logger
      ).collect().first?.decode(Int64.self)
    }
    #expect(rows == 0)
    await storeA.close()
    await storeB.close()
    await database.drop()
  }
}
