import Foundation

extension Venues {
  /// Everything the store holds, into memory, as the writes left it.
  static func load(_ stored: StoredVenues, into s: inout State) {
    s.nextVenue = stored.nextVenue
    s.nextDependant = stored.nextDependant
    s.visits.reserve(upTo: stored.nextVisit - 1)
    for venue in stored.venues { add(venue, to: &s) }
    for dependant in stored.dependants {
      s.dependants[dependant.id] = dependant
      s.dependantsOf[dependant.accountId, default: []].append(dependant.id)
    }
    for visit in stored.visits { add(visit, to: &s) }
    for favorite in stored.favorites {
      s.favorites[favorite.account, default: [:]][favorite.venue] = favorite.addedAt
    }
    for notice in stored.notices { s.notices[notice.accountId, default: []].append(notice) }
    s.nextGuest = stored.nextGuest
    for guest in stored.guests { add(guest, to: &s) }
  }

  static func add(_ venue: Venue, to s: inout State) {
    s.venues[venue.id] = venue
    s.byCode[venue.code] = venue.id
    if let previous = venue.previousCode { s.byPreviousCode[previous] = venue.id }
    s.byOwner[venue.ownerId, default: []].append(venue.id)
    s.nextVenue = max(s.nextVenue, venue.id + 1)
  }

  /// Adds a visit to the table and its indexes; visits come in order of start, or nearly.
  static func add(_ visit: Visit, to s: inout State) {
    s.visits.set(visit)
    let at = s.visits
    func insert(_ id: Int64, into ids: inout [Int64]) {
      if let last = ids.last, at.at(last).start > visit.start {
        var (low, high) = (0, ids.count)
        while low < high {
          let mid = (low + high) / 2
          if at.at(ids[mid]).start <= visit.start { low = mid + 1 } else { high = mid }
        }
        ids.insert(id, at: low)
      } else {
        ids.append(id)
      }
    }
    insert(visit.id, into: &s.atVenue[visit.venueId, default: AtVenue()].ids)
    insert(visit.id, into: &s.ofAccount[visit.accountId, default: []])
    if visit.isOpen {
      s.open[Person(account: visit.accountId, dependant: visit.dependantId)] = visit.id
    }
    if visit.isOpen || visit.end - visit.start > longVisit {
      s.atVenue[visit.venueId]?.long.insert(visit.id)
    }
  }

  /// Adds a guest visit to its venue's, in order of start.
  static func add(_ guest: GuestVisit, to s: inout State) {
    s.guests[guest.id] = guest
    s.nextGuest = max(s.nextGuest, guest.id + 1)
    let guests = s.guests
    func insert(into ids: inout [Int64]) {
      var (low, high) = (0, ids.count)
      while low < high {
        let mid = (low + high) / 2
        if guests[ids[mid]]!.start <= guest.start { low = mid + 1 } else { high = mid }
      }
      ids.insert(guest.id, at: low)
    }
    insert(into: &s.guestsAt[guest.venueId, default: []])
  }

  /// Closes an open visit at `end`, or at its start if the clock went back meanwhile.
  static func close(_ id: Int64, at time: Double, in s: inout State) {
    let visit = s.visits.at(id)
    let end = max(time, visit.start)
    s.visits.close(id, at: end)
    s.open[Person(account: visit.accountId, dependant: visit.dependantId)] = nil
    if end - visit.start <= longVisit { s.atVenue[visit.venueId]?.long.remove(id) }
  }
}

extension VisitTable {
  /// Makes room for ids up to `count` (a restart's visits).
  mutating func reserve(upTo count: Int64) {
    if count > 0 {
      set(Visit(id: count, venueId: 0, accountId: 0, dependantId: 0, start: 0, end: 0))
    }
  }
}
