import Foundation
import SpatialIndex
import Synchronization

/// The live presences, held in memory only (never written to disk): each account's grid cell
/// (`PresenceGrid`), whether it may be found, and when it expires. The findable ones are in a
/// `GeoIndex` of their own (its own lock, item id = account id); an expired presence is never
/// answered, and leaves memory at the first call after its second is past (expiries are kept
/// in one bucket per second, so that costs only the presences due).
final class Presences: Sendable {
  struct Presence: Sendable {
    var longitude: Double
    var latitude: Double
    var findable: Bool
    /// Seconds since 1970.
    var expires: Double
    /// Set through this node (not heard from another): this node tells it to a node that
    /// joins.
    var setHere: Bool
  }

  private struct State {
    var live: [Int64: Presence] = [:]
    /// Accounts by the second their presence expires in (a moved presence leaves a stale
    /// entry, checked against `live` when its second comes).
    var due: [Int64: [Int64]] = [:]
    /// Every second up to this one has been swept.
    var swept: Int64
  }

  let index: GeoIndex
  let searchers: SearcherPool
  private let state: Mutex<State>

  init(now: Double) {
    index = try! GeoIndex()
    searchers = SearcherPool(index: index)
    state = Mutex(State(swept: Int64(now.rounded(.down))))
  }

  var count: Int { state.withLock { $0.live.count } }

  /// Sets the account's presence (already snapped); false for an id the index cannot hold.
  func set(_ account: Int64, _ presence: Presence, now: Double) -> Bool {
    guard let id = ItemID(exactly: account) else { return false }
    state.withLock { s in
      sweep(now, &s)
      s.live[account] = presence
      s.due[Int64(presence.expires.rounded(.down)), default: []].append(account)
      if presence.findable {
        _ = try? index.upsert(
          Item(id: id, longitude: presence.longitude, latitude: presence.latitude))
      } else {
        index.remove(id: id)
      }
    }
    return true
  }

  /// Removes the account's presence; whether it had a live one.
  @discardableResult
  func clear(_ account: Int64, now: Double) -> Bool {
    state.withLock { s in
      sweep(now, &s)
      return remove(account, &s).map { $0.expires > now } ?? false
    }
  }

  /// The live presences set through this node.
  func setHere(now: Double) -> [(Int64, Presence)] {
    state.withLock { s in
      sweep(now, &s)
      return s.live.filter { $0.value.setHere && $0.value.expires > now }.map { ($0.key, $0.value) }
    }
  }

  /// The account's presence while it is live.
  func presence(_ account: Int64, now: Double) -> Presence? {
    state.withLock { s in
      sweep(now, &s)
      return s.live[account].flatMap { $0.expires > now ? $0 : nil }
    }
  }

  /// Of `ids`, those whose presence is live and findable now, with it, in order.
  func findable(_ ids: [Int64], now: Double) -> [(Int64, Presence)] {
    state.withLock { s in
      ids.compactMap { id in
        s.live[id].flatMap { $0.findable && $0.expires > now ? (id, $0) : nil }
      }
    }
  }

  private func remove(_ account: Int64, _ s: inout State) -> Presence? {
    guard let gone = s.live.removeValue(forKey: account) else { return nil }
    if gone.findable, let id = ItemID(exactly: account) { index.remove(id: id) }
    return gone
  }

  /// Forgets every presence whose second has passed.
  private func sweep(_ now: Double, _ s: inout State) {
    let second = Int64(now.rounded(.down))
    guard second > s.swept else { return }
    // After a long idle time, the buckets themselves are fewer than the seconds passed.
    let seconds =
      second - s.swept > Int64(s.due.count)
      ? s.due.keys.filter { $0 < second }.sorted() : Array(s.swept..<second)
    for bucket in seconds {
      for account in s.due.removeValue(forKey: bucket) ?? []
      where s.live[account].map({ $0.expires <= now }) == true {
        _ = remove(account, &s)
      }
    }
    s.swept = second
  }
}
