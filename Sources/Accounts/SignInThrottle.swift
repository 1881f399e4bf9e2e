import Foundation
import Synchronization

/// Slows down guessing: after `freeFailures` failed sign-ins for one email or from one address,
/// every further attempt on it waits, twice as long after each failure (up to `maximumDelay`),
/// until `forgetAfter` has passed without a failure. A success clears its email's count, not
/// its address's (one person signing in does not unlock an address that guessed at others).
final class SignInThrottle: Sendable {
  struct Policy: Sendable {
    var freeFailures = 5
    var maximumDelay: Double = 60
    var forgetAfter: Double = 15 * 60
    /// Keys remembered at most: beyond it, the oldest are forgotten first.
    var capacity = 100_000
  }

  private struct Failures {
    var count: Int
    var last: Double
  }

  private let policy: Policy
  private let failures = Mutex<[String: Failures]>([:])

  init(policy: Policy = Policy()) { self.policy = policy }

  /// Seconds to wait before checking an attempt on these keys.
  func delay(for keys: [String], now: Double = Date().timeIntervalSince1970) -> Double {
    failures.withLock { failures in
      keys.map { key -> Double in
        guard let f = failures[key], now - f.last < policy.forgetAfter,
          f.count >= policy.freeFailures
        else { return 0 }
        let doublings = min(f.count - policy.freeFailures, 30)
        return min(policy.maximumDelay, Double(1 << doublings))
      }.max() ?? 0
    }
  }

  func failed(_ keys: [String], now: Double = Date().timeIntervalSince1970) {
    failures.withLock { failures in
      for key in keys {
        var f = failures[key] ?? Failures(count: 0, last: now)
        if now - f.last >= policy.forgetAfter { f.count = 0 }
        f.count += 1
        f.last = now
        failures[key] = f
      }
      if failures.count > policy.capacity {
        let oldest = failures.sorted { $0.value.last < $1.value.last }
          .prefix(failures.count - policy.capacity * 9 / 10)
        for (key, _) in oldest { failures[key] = nil }
      }
    }
  }

  func succeeded(_ key: String) {
    _ = failures.withLock { $0.removeValue(forKey: key) }
  }
}
