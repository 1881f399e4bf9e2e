import Geocoding
import Synchronization

/// `--rate`: at most `rate` requests a second to the geocoder it wraps, whatever the
/// concurrency; each request waits for its slot.
public final class PacedGeocoder: Geocoder {
  private let inner: any Geocoder
  private let gap: Duration
  private let nextSlot = Mutex(ContinuousClock.now)

  public var name: String { inner.name }

  public init(_ inner: any Geocoder, rate: Double) {
    precondition(rate > 0, "the rate must be positive")
    self.inner = inner
    gap = .nanoseconds(Int64(1e9 / rate))
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    try await waitForSlot()
    return try await inner.search(query)
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try await waitForSlot()
    return try await inner.reverse(lon: lon, lat: lat)
  }

  private func waitForSlot() async throws {
    let slot = nextSlot.withLock { next in
      let slot = max(next, ContinuousClock.now)
      next = slot + gap
      return slot
    }
    try await Task.sleep(until: slot, clock: .continuous)
  }
}
