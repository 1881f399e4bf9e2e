import Geocoding

/// Answers from `cache` when it can, else asks `inner` and keeps the answer (a miss too).
/// Failures are not kept. Validation happens first, so a bad request is neither asked nor kept.
public struct CachingGeocoder: StructuredGeocoder, KeepsAnswers {
  public let inner: any Geocoder
  public let cache: GeocodeCache
  /// The cache's provider key: the provider and its host ("nominatim@127.0.0.1:8088"), since
  /// two instances of one provider may hold different data.
  public let cacheProvider: String
  public var name: String { inner.name }

  public init(_ inner: any Geocoder, cache: GeocodeCache, cacheProvider: String? = nil) {
    self.inner = inner
    self.cache = cache
    self.cacheProvider = cacheProvider ?? inner.name
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    let query = try query.validated()
    return try await cached(cache.key(provider: cacheProvider, query)) {
      try await inner.search(query)
    }
  }

  public func search(_ address: AddressParts) async throws -> [Place] {
    let address = try address.validated()
    guard let structured = inner as? any StructuredGeocoder else {
      return try await search(GeocodeQuery(address.text, limit: address.limit))
    }
    return try await cached(cache.key(provider: cacheProvider, address)) {
      try await structured.search(address)
    }
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try validateCoordinate(lon: lon, lat: lat)
    return try await cached(cache.key(provider: cacheProvider, lon: lon, lat: lat)) {
      try await inner.reverse(lon: lon, lat: lat).map { [$0] } ?? []
    }.first
  }

  public func keptAnswers(_ queries: [GeocodeQuery]) async -> [[Place]?] {
    var answers = [[Place]?](repeating: nil, count: queries.count)
    let valid = queries.indices.compactMap { i in (try? queries[i].validated()).map { (i, $0) } }
    // An unreadable cache keeps nothing: `search` asks, and reports what fails.
    guard
      let kept = try? await cache.lookup(valid.map { cache.key(provider: cacheProvider, $0.1) })
    else { return answers }
    for ((i, _), places) in zip(valid, kept) { answers[i] = places }
    return answers
  }

  private func cached(_ key: GeocodeCache.Key, _ ask: () async throws -> [Place]) async throws
    -> [Place]
  {
    if let places = try await cache.lookup(key) { return places }
    let places = try await ask()
    try await cache.store(places, for: key)
    return places
  }
}
