import Foundation
import Synchronization

/// At most `limit` distinct items per key in any `window` seconds: the places one account, or one
/// address, searches from. The same item again counts once. Keys are forgotten once their
/// window has passed, and at most `capacity` are held (the stalest go first). A limit of 0 is
/// none.
public final class DistinctLimit: Sendable {
  public let limit: Int
  public let window: Double
  public let capacity: Int
  /// Each key's items, with when each was last seen.
  private let seen = Mutex<[String: [String: Double]]>([:])

  public init(_ limit: Int, per window: Double, capacity: Int = 100_000) {
    precondition(limit >= 0 && window > 0)
    self.limit = limit
    self.window = window
    self.capacity = capacity
  }

  /// Counts `item` on every key, or nothing when it is new to a key already at its limit: then
  /// the seconds until that key's oldest item leaves the window (at least 1).
  public func take(
    _ item: String, on keys: [String], now: Double = Date().timeIntervalSince1970
  ) -> Int? {
    guard limit > 0 else { return nil }
    return seen.withLock { seen in
      var wait = 0.0
      for key in keys {
        let items = (seen[key] ?? [:]).filter { now - $0.value < window }
        seen[key] = items.isEmpty ? nil : items
        if items[item] == nil, items.count >= limit, let oldest = items.values.min() {
          wait = max(wait, oldest + window - now)
        }
      }
      if wait > 0 { return max(1, Int(wait.rounded(.up))) }
      Self.count(item, on: keys, now, &seen, capacity)
      return nil
    }
  }

  /// Counts `item` on every key without asking: one counted elsewhere (another node's).
  public func record(
    _ item: String, on keys: [String], now: Double = Date().timeIntervalSince1970
  ) {
    guard limit > 0 else { return }
    seen.withLock { Self.count(item, on: keys, now, &$0, capacity) }
  }

  private static func count(
    _ item: String, on keys: [String], _ now: Double, _ seen: inout [String: [String: Double]],
    _ capacity: Int
  ) {
    for key in keys { seen[key, default: [:]][item] = now }
    guard seen.count > capacity else { return }
    let stalest = seen.sorted { ($0.value.values.max() ?? 0) < ($1.value.values.max() ?? 0) }
      .prefix(seen.count - capacity * 9 / 10)
    for (key, _) in stalest { seen[key] = nil }
  }
}
