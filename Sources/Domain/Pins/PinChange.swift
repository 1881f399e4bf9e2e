import Foundation
import SpatialIndex

/// One pin write as every node applies it, in the order the shared store committed them
/// (`Pins.apply(followed:own:)`): a new pin, a photo set, a pin deleted, a vote, or an
/// account's pins and votes gone.
public enum PinChange: Sendable, Equatable, Codable {
  case added(StoredPin)
  case photo(pin: Int64, PinPhoto)
  case deleted(pin: Int64)
  /// +1, -1, or 0 for none.
  case vote(pin: Int64, account: Int64, vote: Int8)
  case deletedAll(account: Int64)
}

/// A pin as written, without its votes (they come as votes).
public struct StoredPin: Sendable, Equatable, Codable {
  let id: Int64
  let ownerId: Int64
  let longitude: Double
  let latitude: Double
  let radius: Double
  let caption: String?
  /// Seconds since 1970.
  let takenAt: Double?
  let createdAt: Double

  public init(_ pin: Pin) {
    id = pin.id
    ownerId = pin.ownerId
    longitude = pin.longitude
    latitude = pin.latitude
    radius = pin.radius
    caption = pin.caption
    takenAt = pin.takenAt?.timeIntervalSince1970
    createdAt = pin.createdAt.timeIntervalSince1970
  }

  var pin: Pin {
    Pin(
      id: id, ownerId: ownerId, longitude: longitude, latitude: latitude, radius: radius,
      caption: caption, takenAt: takenAt.map(Date.init(timeIntervalSince1970:)),
      createdAt: Date(timeIntervalSince1970: createdAt))
  }
}

extension Pins {
  /// Applies a change committed to the shared store, in the feed's order; `own` when this node
  /// wrote it (memory has it already). Only a pin's owner changes it, and only the voter its
  /// vote: one account writing one pin on two nodes at the same moment is the race this leaves
  /// (docs/STORE.md).
  public func apply(followed change: PinChange, own: Bool) {
    guard !own else { return }
    switch change {
    case .added(let stored):
      let pin = stored.pin
      guard ItemID(exactly: pin.id) != nil else { return }
      let new = state.withLock { s -> Bool in
        guard s.pins[pin.id] == nil else { return false }
        Self.add(pin, to: &s)
        return true
      }
      if new { map.place(pin, summary: summary(pin)) }
    case .photo(let id, let photo):
      let changed = state.withLock { s -> Pin? in
        guard var pin = s.pins[id] else { return nil }
        pin.photo = photo
        s.pins[id] = pin
        return pin
      }
      if let changed { map.update(id, summary: summary(changed)) }
    case .deleted(let id):
      let gone = state.withLock { s -> Bool in
        guard let pin = s.pins[id] else { return false }
        Self.remove(pin, from: &s)
        return true
      }
      if gone { map.remove(id) }
    case .vote(let id, let account, let vote):
      let changed = state.withLock { s -> Pin? in
        Self.setVote(vote, of: account, on: id, &s)
        return s.pins[id]
      }
      if let changed { map.update(id, summary: summary(changed)) }
    case .deletedAll(let account):
      forget(account)
    }
  }
}
