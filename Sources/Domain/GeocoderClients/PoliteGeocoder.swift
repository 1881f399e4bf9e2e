import Geocoding

/// Wraps a client of an HTTP geocoder with what a well-behaved client does: a per-host rate
/// limit, retries with backoff on transient failures (honouring Retry-After), and a circuit
/// breaker. Each attempt is one request through the limiter, so retries are rate limited too.
public struct PoliteGeocoder: StructuredGeocoder {
  public let inner: any Geocoder
  public let limiter: RateLimiter
  public let breaker: CircuitBreaker
  public let retry: RetryPolicy
  public var name: String { inner.name }
  private let host: String

  /// `rate` in requests per second for `host`, defaulting to `RateLimiters.defaultRate`; the
  /// limiter is `RateLimiters.shared`'s for the host unless one is given.
  public init(
    _ inner: any Geocoder, host: String, rate: Double? = nil, limiter: RateLimiter? = nil,
    retry: RetryPolicy = RetryPolicy(), breaker: CircuitBreaker = CircuitBreaker()
  ) {
    self.inner = inner
    self.host = host
    self.limiter =
      limiter
      ?? RateLimiters.shared.limiter(host: host, rate: rate ?? RateLimiters.defaultRate(host: host))
    self.retry = retry
    self.breaker = breaker
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    let query = try query.validated()
    return try await run { try await inner.search(query) }
  }

  public func search(_ address: AddressParts) async throws -> [Place] {
    let address = try address.validated()
    guard let structured = inner as? any StructuredGeocoder else {
      return try await search(GeocodeQuery(address.text, limit: address.limit))
    }
    return try await run { try await structured.search(address) }
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try validateCoordinate(lon: lon, lat: lat)
    return try await run { try await inner.reverse(lon: lon, lat: lat) }
  }

  private func run<T>(_ request: () async throws -> T) async throws -> T {
    var failures = 0
    while true {
      if let wait = breaker.permit() {
        throw GeocoderServiceError.circuitOpen(host: host, retryInSeconds: wait)
      }
      do {
        try await limiter.acquire()
        let result = try await request()
        breaker.succeeded()
        return result
      } catch let error as GeocoderServiceError {
        // A 4xx other than 429 is our request's fault: the service works.
        if error.isServiceFailure { breaker.failed() } else { breaker.succeeded() }
        failures += 1
        guard error.isTransient, failures < retry.maxAttempts else { throw error }
        if case .http(_, _, let retryAfter?, _) = error {
          guard retryAfter <= retry.maxRetryAfter.seconds else { throw error }
          // Everyone on this host waits; the next acquire() sleeps until then.
          limiter.pause(for: retryAfter)
        } else {
          // At least one slot's spacing after the failed answer: the limiter spaces the moments
          // requests leave, and an attempt that reached the server late would otherwise be
          // followed by its retry sooner than the host's limit allows.
          let spacing = Duration.seconds(1 / limiter.rate)
          try await Task.sleep(for: max(retry.delay(afterFailure: failures), spacing))
        }
      } catch {
        breaker.abandoned()
        throw error
      }
    }
  }
}
