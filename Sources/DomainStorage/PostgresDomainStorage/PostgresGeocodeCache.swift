import Foundation
import GeocoderClients
import Logging
import PostgresNIO
import PostgresStore

/// The geocoders' answers in PostgreSQL: `geocode_cache`, shared by every node, so an address one
/// node looked up is not asked of the geocoder again by another (whose rate limit it would
/// spend). Read on a connection of its own; written through the store's group commit, with
/// nothing for the feed (no node holds the answers in memory).
public struct PostgresGeocodeCache: GeocodeCacheStorage {
  public static let migrations = [
    PostgresMigration(
      "geocode-cache-v1",
      [
        """
        CREATE TABLE geocode_cache (
          provider text NOT NULL,
          kind text NOT NULL,
          request text NOT NULL,
          -- The answer, a JSON array of places ([] for a miss).
          places text NOT NULL,
          created_at timestamptz NOT NULL,
          expires_at timestamptz NOT NULL,
          PRIMARY KEY (provider, kind, request))
        """,
        "CREATE INDEX geocode_cache_by_expiry ON geocode_cache (expires_at)",
      ])
  ]

  let store: PostgresStore
  let logger: Logger

  public init(store: PostgresStore, logger: Logger) {
    self.store = store
    self.logger = logger
  }

  public func answers(_ keys: [GeocodeCache.Key], unexpiredAt time: Double) async throws
    -> [String?]
  {
    guard !keys.isEmpty else { return [] }
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    var found: [Int: String] = [:]
    for try await (index, places) in try await connection.query(
      """
      SELECT asked.i, c.places
      FROM unnest(\(keys.map(\.provider)), \(keys.map(\.kind)), \(keys.map(\.request)))
        WITH ORDINALITY AS asked (provider, kind, request, i)
      JOIN geocode_cache c USING (provider, kind, request)
      WHERE c.expires_at > \(Date(timeIntervalSince1970: time))
      """, logger: logger
    ).decode((Int64, String).self) {
      found[Int(index) - 1] = places
    }
    return keys.indices.map { found[$0] }
  }

  public func keep(
    _ answer: String, for key: GeocodeCache.Key, at time: Double, until expiry: Double
  ) async throws {
    try await store.commit([
      StatementsWrite { connection, logger in
        try await connection.query(
          """
          INSERT INTO geocode_cache (provider, kind, request, places, created_at, expires_at)
          VALUES (\(key.provider), \(key.kind), \(key.request), \(answer),
            \(Date(timeIntervalSince1970: time)), \(Date(timeIntervalSince1970: expiry)))
          ON CONFLICT (provider, kind, request) DO UPDATE
          SET places = excluded.places, created_at = excluded.created_at,
            expires_at = excluded.expires_at
          """, logger: logger)
      }
    ])
  }

  public func purge(expiredAt time: Double) async throws -> Int {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    return try await connection.query(
      """
      WITH gone AS (
        DELETE FROM geocode_cache WHERE expires_at <= \(Date(timeIntervalSince1970: time))
        RETURNING 1)
      SELECT count(*)::bigint FROM gone
      """, logger: logger
    ).collect().first.map { Int(try $0.decode(Int64.self)) } ?? 0
  }
}
