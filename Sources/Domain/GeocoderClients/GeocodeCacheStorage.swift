/// Where `GeocodeCache` keeps its answers: the service's store (writes go through its group
/// commit), or a file of its own for the command line. The embedded store's read runs on the
/// caller's thread (a look-up takes microseconds, and a hop to a queue and back cost more than
/// that); a database's over the network is awaited. The embedded store's are
/// `SQLiteDomainStorage.SQLiteGeocodeCache` and `SQLiteGeocodeCacheFile`; PostgreSQL's is
/// `PostgresGeocodeCache`.
public protocol GeocodeCacheStorage: Sendable {
  /// Each key's answer (a JSON array of places), if it expires after `time` (seconds since
  /// 1970), in one read.
  func answers(_ keys: [GeocodeCache.Key], unexpiredAt time: Double) async throws -> [String?]
  /// Keeps the answer for the key, replacing any, from `time` until `expiry`.
  func keep(_ answer: String, for key: GeocodeCache.Key, at time: Double, until expiry: Double)
    async throws
  /// Deletes the answers expired at `time`; returns how many.
  func purge(expiredAt time: Double) async throws -> Int
}
