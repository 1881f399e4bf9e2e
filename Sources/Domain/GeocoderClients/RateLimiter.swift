import Foundation
import Synchronization

/// A token bucket: `rate` requests a second on average, at most `burst` at once. Callers
/// reserve a slot and sleep until it comes, so concurrent callers are spaced out in arrival
/// order rather than woken together.
public final class RateLimiter: Sendable {
  public let rate: Double
  public let burst: Double
  private struct State {
    var tokens: Double
    var updated: ContinuousClock.Instant
    /// No slot before this (a 429's Retry-After).
    var pausedUntil: ContinuousClock.Instant
    /// When the last caller was let through, as it woke: with `burst` 1, no two go through
    /// closer than 1/`rate`, however late their sleeps end together (a busy machine).
    var lastThrough: ContinuousClock.Instant?
  }
  private let state: Mutex<State>

  /// `rate` > 0 requests per second; `burst` ≥ 1.
  public init(rate: Double, burst: Double = 1) {
    precondition(rate > 0 && burst >= 1)
    self.rate = rate
    self.burst = burst
    let now = ContinuousClock.now
    state = Mutex(State(tokens: burst, updated: now, pausedUntil: now))
  }

  /// Waits for a slot. Throws CancellationError if the task is cancelled meanwhile (the slot is
  /// then spent: being conservative never exceeds the rate).
  public func acquire() async throws {
    let slot = state.withLock { s -> ContinuousClock.Instant in
      let now = ContinuousClock.now
      let start = max(now, s.pausedUntil)
      s.tokens = min(burst, s.tokens + (start - s.updated).seconds * rate)
      s.updated = start
      s.tokens -= 1
      // A negative balance is a queue: this caller's slot is that far in the future.
      return s.tokens >= 0 ? start : start + .seconds(-s.tokens / rate)
    }
    if slot > .now { try await Task.sleep(until: slot, clock: .continuous) }
    guard burst == 1 else { return }
    let gap = Duration.seconds(1 / rate)
    while true {
      let wait = state.withLock { s -> ContinuousClock.Instant? in
        let now = ContinuousClock.now
        if let last = s.lastThrough, now < last + gap { return last + gap }
        s.lastThrough = now
        return nil
      }
      guard let wait else { return }
      try await Task.sleep(until: wait, clock: .continuous)
    }
  }

  /// No slot before `seconds` from now: a server's Retry-After applies to every caller.
  public func pause(for seconds: Double) {
    let until = ContinuousClock.now + .seconds(seconds)
    state.withLock { s in
      if until > s.pausedUntil { s.pausedUntil = until }
    }
  }
}

/// One limiter per host, shared by every client in the process: two geocoders on one host
/// share its limit.
public final class RateLimiters: Sendable {
  private let limiters = Mutex<[String: RateLimiter]>([:])

  public init() {}

  public static let shared = RateLimiters()

  /// The host's limiter, made with `rate` the first time it is asked for.
  public func limiter(host: String, rate: Double) -> RateLimiter {
    limiters.withLock { all in
      if let existing = all[host] { return existing }
      let limiter = RateLimiter(rate: rate)
      all[host] = limiter
      return limiter
    }
  }

  /// The default rate for a host: 1 request/s (the public Nominatim's and Photon's usage
  /// policies), but 50/s for a geocoder on this machine, which is ours to load.
  public static func defaultRate(host: String) -> Double {
    let name = host.split(separator: ":").first.map(String.init) ?? host
    let local = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(name) || name.hasPrefix("127.")
    return local ? 50 : 1
  }
}
