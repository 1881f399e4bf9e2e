import Foundation
import Synchronization

/// At most `limit` events per key in any `window` seconds (a sliding log of each key's recent
/// events), for limits on what one account or one address may do: sign-ups, mails, reads,
/// uploads. Keys are forgotten once their window has passed, and at most `capacity` are held
/// (the stalest go first), so a flood of distinct keys costs bounded memory. A limit of 0 is
/// none.
public final class KeyedLimit: Sendable {
  public let limit: Int
  public let window: Double
  public let capacity: Int
  private let events = Mutex<[String: [Double]]>([:])

  public init(_ limit: Int, per window: Double, capacity: Int = 100_000) {
    precondition(limit >= 0 && window > 0)
    self.limit = limit
    self.window = window
    self.capacity = capacity
  }

  /// Counts one event on every key, or none when any key is at its limit: then the seconds
  /// until the oldest of its events leaves the window (at least 1).
  public func take(_ keys: [String], now: Double = Date().timeIntervalSince1970) -> Int? {
    guard limit > 0 else { return nil }
    return events.withLock { events in
      var wait = 0.0
      for key in keys {
        let recent = (events[key] ?? []).filter { now - $0 < window }
        events[key] = recent.isEmpty ? nil : recent
        if recent.count >= limit { wait = max(wait, recent[recent.count - limit] + window - now) }
      }
      if wait > 0 { return max(1, Int(wait.rounded(.up))) }
      for key in keys { events[key, default: []].append(now) }
      if events.count > capacity { Self.evict(&events, keeping: capacity * 9 / 10) }
      return nil
    }
  }

  /// Counts one event on every key without asking: one counted elsewhere (another node's).
  public func record(_ keys: [String], now: Double = Date().timeIntervalSince1970) {
    guard limit > 0 else { return }
    events.withLock { events in
      for key in keys { events[key, default: []].append(now) }
      if events.count > capacity { Self.evict(&events, keeping: capacity * 9 / 10) }
    }
  }

  private static func evict(_ events: inout [String: [Double]], keeping count: Int) {
    let stalest = events.sorted { ($0.value.last ?? 0) < ($1.value.last ?? 0) }
      .prefix(events.count - count)
    for (key, _) in stalest { events[key] = nil }
  }
}

/// A limit reached: what it limits, and the seconds until a retry may pass.
public struct LimitExceeded: Error, Sendable, Equatable {
  public let what: String
  public let retryAfter: Int

  public init(_ what: String, retryAfter: Int) {
    self.what = what
    self.retryAfter = retryAfter
  }
}
