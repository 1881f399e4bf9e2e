import Foundation
import GRDB

extension Venues {
  /// Everything the store holds, into memory, as the writes left it.
  static func load(_ db: GRDB.Database, into s: inout State) throws {
    for (name, seq) in try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence").map({
      ($0["name"] as String, $0["seq"] as Int64)
    }) {
      switch name {
      case "venues": s.nextVenue = seq + 1
      case "venue_dependants": s.nextDependant = seq + 1
      case "venue_visits": s.visits.reserve(upTo: seq)
      default: break
      }
    }
    let venues = try Row.fetchCursor(
      db, sql: "SELECT id, owner_id, name, lon, lat, address, code, created_at FROM venues")
    while let row = try venues.next() {
      add(
        Venue(
          id: row["id"], ownerId: row["owner_id"], name: row["name"], longitude: row["lon"],
          latitude: row["lat"], address: row["address"], code: row["code"],
          createdAt: Date(timeIntervalSince1970: row["created_at"])), to: &s)
    }
    let dependants = try Row.fetchCursor(
      db, sql: "SELECT id, account_id, name, removed, created_at FROM venue_dependants ORDER BY id")
    while let row = try dependants.next() {
      let dependant = Dependant(
        id: row["id"], accountId: row["account_id"], name: row["name"], removed: row["removed"],
        createdAt: Date(timeIntervalSince1970: row["created_at"]))
      s.dependants[dependant.id] = dependant
      s.dependantsOf[dependant.accountId, default: []].append(dependant.id)
    }
    let visits = try Row.fetchCursor(
      db,
      sql: """
        SELECT id, venue_id, account_id, dependant_id, checked_in_at, checked_out_at
        FROM venue_visits ORDER BY checked_in_at, id
        """)
    while let row = try visits.next() {
      let end: Double? = row["checked_out_at"]
      add(
        Visit(
          id: row["id"], venueId: row["venue_id"], accountId: row["account_id"],
          dependantId: row["dependant_id"] ?? 0, start: row["checked_in_at"],
          end: end ?? .infinity), to: &s)
    }
    let favorites = try Row.fetchCursor(
      db, sql: "SELECT account_id, venue_id, added_at FROM venue_favorites")
    while let row = try favorites.next() {
      s.favorites[row["account_id"], default: [:]][row["venue_id"]] = row["added_at"]
    }
    let notices = try Row.fetchCursor(
      db,
      sql: """
        SELECT account_id, dependant_id, venue_id, venue_name, from_at, to_at, reported_at
        FROM exposure_notices ORDER BY reported_at
        """)
    while let row = try notices.next() {
      let notice = ExposureNotice(
        accountId: row["account_id"], dependantId: row["dependant_id"], venueId: row["venue_id"],
        venueName: row["venue_name"], from: row["from_at"], to: row["to_at"],
        reportedAt: row["reported_at"])
      s.notices[notice.accountId, default: []].append(notice)
    }
  }

  static func add(_ venue: Venue, to s: inout State) {
    s.venues[venue.id] = venue
    s.byCode[venue.code] = venue.id
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
