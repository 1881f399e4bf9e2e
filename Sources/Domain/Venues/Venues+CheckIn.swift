import Durability
import Foundation
import Geodesy

/// What a check-in or check-out made: the account's own visit, and its dependants'.
public struct CheckIn: Sendable {
  public let visit: Visit?
  public let dependants: [Visit]
}

extension Venues {
  // MARK: Writing

  /// Checks the account in at the venue whose code it scanned, with the dependants named; a
  /// position farther than `checkInDistance` is refused. Each of them still open at another
  /// venue is checked out there now; one already in at this venue stays in.
  public func checkIn(
    account: Int64, code: String, at position: (longitude: Double, latitude: Double)?,
    with dependantIds: [Int64] = [], _ done: @escaping Done<CheckIn>
  ) {
    if let position, !Self.validPosition(position.longitude, position.latitude) {
      return done(
        .failure(.invalid(field: "position", reason: "longitude or latitude out of range")))
    }
    guard accounts.account(account) != nil else {
      return done(.failure(.notFound("no such account")))
    }
    guard Set(dependantIds).count == dependantIds.count else {
      return done(.failure(.invalid(field: "dependants", reason: "named twice")))
    }
    let now = now
    let made = state.withLock { s -> Result<(CheckIn, [Int64], VisitsChanged), VenueError> in
      guard let venueId = s.byCode[code], let venue = s.venues[venueId] else {
        return .failure(.notFound("no venue has this code"))
      }
      if let position {
        let distance = Sphere.earth.distance(
          longitude: position.longitude, latitude: position.latitude,
          longitude: venue.longitude, latitude: venue.latitude)
        if distance > configuration.checkInDistance {
          return .failure(.notInRange(distance - configuration.checkInDistance))
        }
      }
      for id in dependantIds {
        guard let dependant = s.dependants[id], dependant.accountId == account, !dependant.removed
        else { return .failure(.notFound("no such dependant: \(id)")) }
      }
      var changed: [Int64] = []
      var visits: [Visit] = []
      var undo = VisitsChanged()
      // From the store's blocks, every id the check-in may need, before anything changes.
      var taken: [Int64] = []
      if let blocks = storage.ids?.visits {
        for _ in 0...dependantIds.count {
          guard let id = blocks.next() else { return .failure(Self.waitingForIds) }
          taken.append(id)
        }
      }
      for (i, dependant) in ([0] + dependantIds).enumerated() {
        let person = Person(account: account, dependant: dependant)
        if let open = s.open[person] {
          if s.visits.at(open).venueId == venueId {
            visits.append(s.visits.at(open))
            continue
          }
          Self.close(open, at: now, in: &s)
          changed.append(open)
          undo.closed.append(s.visits.at(open))
        }
        // Else the next slot of the visits' table.
        let id = taken.isEmpty ? Int64(s.visits.slots.count + 1) : taken[i]
        let visit = Visit(
          id: id, venueId: venueId, accountId: account, dependantId: dependant, start: now,
          end: .infinity)
        Self.add(visit, to: &s)
        changed.append(visit.id)
        visits.append(visit)
        undo.opened.append(visit)
      }
      return .success(
        (CheckIn(visit: visits[0], dependants: Array(visits.dropFirst())), changed, undo))
    }
    switch made {
    case .failure(let error): done(.failure(error))
    case .success(let (checkIn, changed, undo)):
      commit(changed.map { sync($0) }, undoing: undo, answer: checkIn, done)
    }
  }

  /// Checks the account and every dependant of it out of where they are in.
  public func checkOut(account: Int64, _ done: @escaping Done<CheckIn>) {
    let now = now
    let closed = state.withLock { s -> [Visit] in
      let people = [0] + (s.dependantsOf[account] ?? [])
      return people.compactMap { dependant in
        guard let open = s.open[Person(account: account, dependant: dependant)] else { return nil }
        Self.close(open, at: now, in: &s)
        return s.visits.at(open)
      }
    }
    let own = closed.first { $0.dependantId == 0 }
    commit(
      closed.map { sync($0.id) }, undoing: VisitsChanged(closed: closed),
      answer: CheckIn(visit: own, dependants: closed.filter { $0.dependantId != 0 }), done)
  }

  /// The visits a check-in or check-out opened and closed, as it left them.
  struct VisitsChanged {
    var opened: [Visit] = []
    var closed: [Visit] = []
  }

  /// Answers `value` once `writes` are durable; when they were not written at all (`TRYAGAIN`),
  /// first undoes in memory what `changed` says, so that memory is what the store holds again.
  private func commit<T: Sendable>(
    _ writes: [any DurableWrite], undoing changed: VisitsChanged, answer value: T,
    _ done: @escaping Done<T>
  ) {
    commit(writes) { [self] result in
      if case .failure(.tryAgain) = result { undo(changed) }
      done(result.map { value })
    }
  }

  /// Only the visits still as the command left them: a later command changed the others, and
  /// its own write (`sync`, which stores what memory holds when it applies) carries them.
  private func undo(_ changed: VisitsChanged) {
    state.withLock { s in
      for visit in changed.opened where s.visits[visit.id] == visit {
        Observer.forget(visit.id, in: &s)
      }
      for visit in changed.closed where s.visits[visit.id] == visit {
        let person = Person(account: visit.accountId, dependant: visit.dependantId)
        guard s.open[person] == nil else { continue }
        var reopened = visit
        reopened.end = .infinity
        s.visits.set(reopened)
        s.open[person] = visit.id
        s.atVenue[visit.venueId]?.long.insert(visit.id)
      }
    }
  }

  /// A write that makes the store's row of the visit what memory holds when it applies, so
  /// that racing changes of one visit leave the latest whatever order they commit in.
  func sync(_ id: Int64) -> any DurableWrite {
    storage.syncingVisit(id) { [self] in state.withLock { $0.visits[id] } }
  }

  // MARK: Reading

  /// The account's latest visit of its own, open or not.
  public func lastVisit(account: Int64) -> Visit? {
    state.withLock { s in
      for id in (s.ofAccount[account] ?? []).reversed() {
        let visit = s.visits.at(id)
        if visit.accountId == account && visit.dependantId == 0 { return visit }
      }
      return nil
    }
  }

  /// The account's visits and its dependants' that overlap `from..<to` (an open one goes on),
  /// newest first, at most `count`.
  public func history(account: Int64, from: Double?, to: Double?, count: Int) -> [Visit] {
    state.withLock { s in
      Self.newestFirst(s.ofAccount[account] ?? [], s, from, to, count) {
        $0.accountId == account
      }
    }
  }

  /// The venue's visits and guests that overlap `from..<to`, newest first, at most `count`:
  /// for its owner only.
  public func visitors(owner: Int64, venue id: Int64, from: Double?, to: Double?, count: Int)
    -> Result<[VenueVisitor], VenueError>
  {
    state.withLock { s in
      guard let venue = s.venues[id] else { return .failure(.notFound("no such venue")) }
      guard venue.ownerId == owner else { return .failure(.noPermission("the venue is not yours")) }
      let visits = Self.newestFirst(s.atVenue[id]?.ids ?? [], s, from, to, count) {
        $0.accountId != 0
      }
      var guests: [GuestVisit] = []
      for guestId in (s.guestsAt[id] ?? []).reversed() where guests.count < count {
        let guest = s.guests[guestId]!
        if let to, guest.start >= to { continue }
        if let from, guest.end <= from { continue }
        guests.append(guest)
      }
      // Both newest first: merged, the later start first (a visit before a guest at a tie).
      var merged: [VenueVisitor] = []
      var (v, g) = (0, 0)
      while merged.count < count && (v < visits.count || g < guests.count) {
        if g == guests.count || (v < visits.count && visits[v].start >= guests[g].start) {
          merged.append(.account(visits[v]))
          v += 1
        } else {
          merged.append(.guest(guests[g]))
          g += 1
        }
      }
      return .success(merged)
    }
  }

  private static func newestFirst(
    _ ids: [Int64], _ s: State, _ from: Double?, _ to: Double?, _ count: Int,
    _ include: (Visit) -> Bool
  ) -> [Visit] {
    var found: [Visit] = []
    for id in ids.reversed() {
      if found.count == count { break }
      let visit = s.visits.at(id)
      guard include(visit) else { continue }
      if let to, visit.start >= to { continue }
      // An open visit goes on; a closed one must end after FROM (one of no length, at it).
      if let from, !visit.isOpen, visit.end < from || (visit.end == from && visit.start < from) {
        continue
      }
      found.append(visit)
    }
    return found
  }

  public func dependant(_ id: Int64) -> Dependant? { state.withLock { $0.dependants[id] } }
}
