import Foundation
import Geodesy
import Synchronization

/// Where each account last said it stood to open a pin, and when: a new position farther than
/// `maximumSpeed` could carry it since is refused. The server cannot see GPS, but it can refuse
/// the impossible: a client that reads pins' centres and claims each in turn, from wherever it
/// is, would cross the world in seconds. Held in memory only (at most `capacity` accounts; the
/// stalest forgotten first), like a presence.
final class OpenerTravel: Sendable {
  /// Metres a second (300 km/h: a fast train; a flight's hops take hours); infinite: no check.
  let maximumSpeed: Double
  /// Metres allowed whatever the time (a GPS fix wanders; a pin's circle is 10 m or more).
  let slack: Double
  let capacity: Int
  private let last = Mutex<[Int64: (longitude: Double, latitude: Double, time: Double)]>([:])

  init(maximumSpeed: Double, slack: Double = 1_000, capacity: Int = 1_000_000) {
    self.maximumSpeed = maximumSpeed
    self.slack = slack
    self.capacity = capacity
  }

  /// Records the account at the point now, or, when it could not have got there from where it
  /// last was, answers how far that was (in metres) and how long ago (in seconds), recording
  /// nothing.
  func move(
    _ account: Int64, longitude: Double, latitude: Double,
    now: Double = Date().timeIntervalSince1970
  ) -> (metres: Double, seconds: Double)? {
    guard maximumSpeed.isFinite else { return nil }
    return last.withLock { last in
      if let before = last[account] {
        let metres = Sphere.earth.distances(fromLongitude: longitude, latitude: latitude)
          .distance(longitude: before.longitude, latitude: before.latitude)
        let seconds = max(0, now - before.time)
        if metres > slack + maximumSpeed * seconds { return (metres, seconds) }
      }
      Self.keep(account, (longitude, latitude, now), in: &last, capacity)
      return nil
    }
  }

  /// Records where the account stood at `at` (another node's open), unless a later position is
  /// known.
  func record(_ account: Int64, longitude: Double, latitude: Double, at: Double) {
    guard maximumSpeed.isFinite else { return }
    last.withLock { last in
      guard (last[account]?.time ?? -.infinity) <= at else { return }
      Self.keep(account, (longitude, latitude, at), in: &last, capacity)
    }
  }

  private static func keep(
    _ account: Int64, _ position: (longitude: Double, latitude: Double, time: Double),
    in last: inout [Int64: (longitude: Double, latitude: Double, time: Double)], _ capacity: Int
  ) {
    if last.count >= capacity, last[account] == nil {
      let stalest = last.sorted { $0.value.time < $1.value.time }.prefix(capacity / 10)
      for (key, _) in stalest { last[key] = nil }
    }
    last[account] = position
  }

  func forget(_ account: Int64) { _ = last.withLock { $0.removeValue(forKey: account) } }
}
