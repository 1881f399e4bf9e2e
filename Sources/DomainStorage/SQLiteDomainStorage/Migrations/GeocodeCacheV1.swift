extension SQLiteGeocodeCache {
  /// geocode-cache-v1: answers by provider, kind and normalized request. Shipped: frozen.
  static let geocodeCacheV1SQL = """
    -- places: the answer, a JSON array of places ([] for a miss).
    CREATE TABLE geocode_cache (
      provider TEXT NOT NULL,
      kind TEXT NOT NULL,
      request TEXT NOT NULL,
      places TEXT NOT NULL,
      created_at REAL NOT NULL,
      expires_at REAL NOT NULL,
      PRIMARY KEY (provider, kind, request)
    ) WITHOUT ROWID;
    CREATE INDEX geocode_cache_by_expiry ON geocode_cache (expires_at);
    """
}
