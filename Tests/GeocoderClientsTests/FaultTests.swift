import Foundation
import Geocoding
import RedisTestSupport
import Testing

@testable import GeocoderClients

/// PoliteGeocoder over NominatimClient against Fixtures/fault_server.py: what is retried, what
/// is not, the circuit breaker, and request spacing measured at the server.
@Suite("Geocoder faults against a misbehaving server", .serialized)
final class FaultTests {
  let server: FaultServer

  init() throws { server = try FaultServer() }

  /// A fresh client and politeness for one scenario: fast retries, a rate that does not matter.
  func geocoder(
    _ behaviour: String, attempts: Int = 4, rate: Double = 1000, timeout: Duration = .seconds(5),
    breaker: CircuitBreaker = CircuitBreaker(threshold: 100), maxRetryAfter: Duration = .seconds(5)
  ) -> (PoliteGeocoder, String) {
    let (url, scenario) = server.url(behaviour)
    let client = NominatimClient(ServiceConfiguration(baseURL: url, timeout: timeout))
    let polite = PoliteGeocoder(
      client, host: scenario, limiter: RateLimiter(rate: rate),
      retry: RetryPolicy(
        maxAttempts: attempts, baseDelay: .milliseconds(20), maxRetryAfter: maxRetryAfter),
      breaker: breaker)
    return (polite, scenario)
  }

  let vaduz = GeocodeQuery("Vaduz")

  @Test func serverErrorsAreRetriedUntilTheyPass() async throws {
    for behaviour in ["fail500-2", "fail503-3"] {
      let (geocoder, scenario) = geocoder(behaviour)
      let places = try await geocoder.search(vaduz)
      #expect(places.map(\.label) == ["Vaduz, Oberland, Liechtenstein"])
      #expect(try await server.arrivals(scenario).count == (behaviour == "fail500-2" ? 3 : 4))
    }
  }

  @Test func retriesStopAtTheLimit() async throws {
    let (geocoder, scenario) = geocoder("always500", attempts: 3)
    await #expect(throws: GeocoderServiceError.self) { try await geocoder.search(self.vaduz) }
    #expect(try await server.arrivals(scenario).count == 3)
  }

  @Test func otherClientErrorsAreNotRetried() async throws {
    let breaker = CircuitBreaker(threshold: 1)
    let (geocoder, scenario) = geocoder("bad400", breaker: breaker)
    do {
      _ = try await geocoder.search(vaduz)
      Issue.record("a 400 succeeded")
    } catch let error as GeocoderServiceError {
      guard case .http(_, 400, _, let message) = error else { throw error }
      #expect(message == "Parameter 'q' not allowed with structured query.")
    }
    #expect(try await server.arrivals(scenario).count == 1)
    // Our request's fault, not the service's: the breaker stays closed.
    #expect(breaker.current == .closed(failures: 0))
  }

  @Test func tooManyRequestsWaitsForRetryAfter() async throws {
    for behaviour in ["r429-1-1", "d429-1-2"] {
      let (geocoder, scenario) = geocoder(behaviour)
      #expect(try await geocoder.search(vaduz).count == 1)
      let arrivals = try await server.arrivals(scenario)
      #expect(arrivals.count == 2)
      // Retry-After: 1, or a date 2 s ahead at one-second resolution: at least 1 s either way.
      #expect(arrivals[1] - arrivals[0] >= 0.95, "\(behaviour): \(arrivals)")
    }
  }

  @Test func aRetryAfterBeyondTheLimitFailsAtOnce() async throws {
    let (geocoder, scenario) = geocoder("r429-5-60", maxRetryAfter: .seconds(10))
    do {
      _ = try await geocoder.search(vaduz)
      Issue.record("a 429 succeeded")
    } catch let error as GeocoderServiceError {
      #expect(
        error
          == .http(
            host: "127.0.0.1:\(server.port)", status: 429, retryAfter: 60,
            message: "Too Many Requests"))
    }
    #expect(try await server.arrivals(scenario).count == 1)
  }

  @Test func slowAnswersTimeOutAndAreRetried() async throws {
    // The server is silent for 30 s: far from any bound a loaded machine could stretch 1 s to.
    for behaviour in ["slow-30", "dribble-30"] {
      let (geocoder, scenario) = geocoder(behaviour, attempts: 2, timeout: .milliseconds(500))
      let start = ContinuousClock.now
      // Timed on threads of its own: a pool full of blocking tests would resume it late.
      try await withTaskExecutorPreference(DedicatedThreads.shared) {
        await #expect(throws: GeocoderServiceError.timeout(host: "127.0.0.1:\(server.port)")) {
          try await geocoder.search(self.vaduz)
        }
      }
      // Two attempts of half a second each, not the server's 30 s nor the default 5 s each.
      let elapsed = ContinuousClock.now - start
      #expect(elapsed >= .seconds(1) && elapsed < .seconds(6), "\(behaviour): \(elapsed)")
      let arrivals = try await server.arrivals(scenario)
      #expect(arrivals.count == 2)
      #expect(arrivals.count == 2 && arrivals[1] - arrivals[0] >= 0.45, "\(arrivals)")
    }
  }

  @Test func unreadableAnswersFailWithoutRetry() async throws {
    for behaviour in ["garbage", "truncated"] {
      let (geocoder, scenario) = geocoder(behaviour)
      do {
        _ = try await geocoder.search(vaduz)
        Issue.record("\(behaviour) succeeded")
      } catch let error as GeocoderServiceError {
        guard case .badResponse = error else { throw error }
      }
      #expect(try await server.arrivals(scenario).count == 1)
    }
  }

  @Test func aConnectionCutShortIsRetried() async throws {
    let (geocoder, scenario) = geocoder("cutoff", attempts: 2)
    do {
      _ = try await geocoder.search(vaduz)
      Issue.record("a cut-off answer succeeded")
    } catch let error as GeocoderServiceError {
      #expect(error.isTransient, "\(error)")
    }
    #expect(try await server.arrivals(scenario).count == 2)
  }

  @Test func aGeocoderThatIsDownOpensTheCircuit() async throws {
    let port = try closedPort()
    let transport = CountingTransport()
    let client = NominatimClient(
      ServiceConfiguration(
        baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: .seconds(2),
        transport: transport))
    let breaker = CircuitBreaker(threshold: 3, coolDown: .seconds(60))
    let geocoder = PoliteGeocoder(
      client, host: "down", limiter: RateLimiter(rate: 1000),
      retry: RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10)), breaker: breaker)
    do {
      _ = try await geocoder.search(vaduz)
      Issue.record("a closed port answered")
    } catch let error as GeocoderServiceError {
      guard case .unreachable = error else { throw error }
    }
    #expect(transport.count == 2)
    // The third failure opens the circuit; the fourth call sends nothing.
    await #expect(throws: GeocoderServiceError.self) {
      try await geocoder.reverse(lon: 9.5, lat: 47.1)
    }
    #expect(transport.count == 3)
    do {
      _ = try await geocoder.search(vaduz)
      Issue.record("an open circuit let a call through")
    } catch let error as GeocoderServiceError {
      guard case .circuitOpen("down", let seconds) = error else { throw error }
      #expect(seconds > 50)
    }
    #expect(transport.count == 3)
  }

  @Test func theCircuitHalfOpensAfterItsCoolDown() async throws {
    let breaker = CircuitBreaker(threshold: 2, coolDown: .milliseconds(300))
    let (failing, failingScenario) = geocoder("always500", attempts: 1, breaker: breaker)
    for _ in 0..<2 {
      await #expect(throws: GeocoderServiceError.self) { try await failing.search(self.vaduz) }
    }
    await #expect(throws: GeocoderServiceError.self) { try await failing.search(self.vaduz) }
    #expect(try await server.arrivals(failingScenario).count == 2)
    // After the cool-down one trial goes; it fails, and the circuit opens again at once.
    try await Task.sleep(for: .milliseconds(350))
    await #expect(throws: GeocoderServiceError.self) { try await failing.search(self.vaduz) }
    #expect(try await server.arrivals(failingScenario).count == 3)
    await #expect(throws: GeocoderServiceError.self) { try await failing.search(self.vaduz) }
    #expect(try await server.arrivals(failingScenario).count == 3)
    // A trial that succeeds closes it.
    try await Task.sleep(for: .milliseconds(350))
    let (healthy, healthyScenario) = geocoder("ok", attempts: 1, breaker: breaker)
    #expect(try await healthy.search(vaduz).count == 1)
    #expect(breaker.current == .closed(failures: 0))
    #expect(try await healthy.search(vaduz).count == 1)
    #expect(try await server.arrivals(healthyScenario).count == 2)
  }

  @Test func concurrentCallsAndRetriesKeepTheRate() async throws {
    // 5 requests a second, 12 callers at once through one limiter.
    let limiter = RateLimiter(rate: 5)
    let (url, scenario) = server.url("ok")
    let client = NominatimClient(ServiceConfiguration(baseURL: url))
    let polite = PoliteGeocoder(
      client, host: scenario, limiter: limiter,
      retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1)))
    try await withThrowingTaskGroup(of: Int.self) { group in
      for i in 0..<12 {
        group.addTask { try await polite.search(GeocodeQuery("Vaduz \(i)")).count }
      }
      for try await count in group { #expect(count == 1) }
    }
    let arrivals = try await server.arrivals(scenario).sorted()
    #expect(arrivals.count == 12)
    let gaps = zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
    // 0.2 s apart, less what a late wake-up or delivery can take from one gap (measured at the
    // server, on a busy machine); over the whole run such lateness cannot add up.
    #expect(gaps.allSatisfy { $0 >= 0.2 - Self.lateness }, "\(gaps)")
    #expect(arrivals.last! - arrivals.first! >= 11 * 0.2 - 0.02)
  }

  @Test func retriesAreRateLimitedToo() async throws {
    let (geocoder, scenario) = geocoder("fail500-3", attempts: 4, rate: 4)
    #expect(try await geocoder.search(vaduz).count == 1)
    let arrivals = try await server.arrivals(scenario)
    #expect(arrivals.count == 4)
    let gaps = zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
    #expect(gaps.allSatisfy { $0 >= 0.25 - Self.lateness }, "\(gaps)")
    #expect(arrivals.last! - arrivals.first! >= 3 * 0.25 - 0.02)
  }

  /// How much earlier than the limiter's spacing a request may reach the server when the one
  /// before it was delivered late (seen: 29 ms with the whole suite on 2 cores).
  static let lateness = 0.05
}
