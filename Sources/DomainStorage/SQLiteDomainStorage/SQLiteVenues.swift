import Foundation
import GRDB
import Store
import Venues

/// The venues in the embedded store: `venues`, `venue_dependants`, `venue_visits`,
/// `venue_guests`, `venue_favorites` and `exposure_notices`.
public struct SQLiteVenues: VenueStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, after the accounts'.
  public static let migrations = [venuesV1, venuesV2]

  public func load() throws -> StoredVenues {
    try store.read { db in
      var stored = StoredVenues()
      for row in try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence") {
        let seq: Int64 = row["seq"]
        switch row["name"] as String {
        case "venues": stored.nextVenue = seq + 1
        case "venue_dependants": stored.nextDependant = seq + 1
        case "venue_visits": stored.nextVisit = seq + 1
        case "venue_guests": stored.nextGuest = seq + 1
        default: break
        }
      }
      let venues = try Row.fetchCursor(
        db,
        sql: """
          SELECT id, owner_id, name, lon, lat, address, code, created_at, previous_code
          FROM venues
          """)
      while let row = try venues.next() {
        stored.venues.append(
          Venue(
            id: row["id"], ownerId: row["owner_id"], name: row["name"], longitude: row["lon"],
            latitude: row["lat"], address: row["address"], code: row["code"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            previousCode: row["previous_code"]))
      }
      let guests = try Row.fetchCursor(
        db,
        sql: """
          SELECT id, venue_id, name, email, phone, checked_in_at, checked_out_at, notified
          FROM venue_guests ORDER BY checked_in_at, id
          """)
      while let row = try guests.next() {
        stored.guests.append(
          GuestVisit(
            id: row["id"], venueId: row["venue_id"], name: row["name"], email: row["email"],
            phone: row["phone"], start: row["checked_in_at"], end: row["checked_out_at"],
            notified: row["notified"]))
      }
      let dependants = try Row.fetchCursor(
        db,
        sql: "SELECT id, account_id, name, removed, created_at FROM venue_dependants ORDER BY id")
      while let row = try dependants.next() {
        stored.dependants.append(
          Dependant(
            id: row["id"], accountId: row["account_id"], name: row["name"],
            removed: row["removed"], createdAt: Date(timeIntervalSince1970: row["created_at"])))
      }
      let visits = try Row.fetchCursor(
        db,
        sql: """
          SELECT id, venue_id, account_id, dependant_id, checked_in_at, checked_out_at
          FROM venue_visits ORDER BY checked_in_at, id
          """)
      while let row = try visits.next() {
        let end: Double? = row["checked_out_at"]
        stored.visits.append(
          Visit(
            id: row["id"], venueId: row["venue_id"], accountId: row["account_id"],
            dependantId: row["dependant_id"] ?? 0, start: row["checked_in_at"],
            end: end ?? .infinity))
      }
      let favorites = try Row.fetchCursor(
        db, sql: "SELECT account_id, venue_id, added_at FROM venue_favorites")
      while let row = try favorites.next() {
        stored.favorites.append((row["account_id"], row["venue_id"], row["added_at"]))
      }
      let notices = try Row.fetchCursor(
        db,
        sql: """
          SELECT account_id, dependant_id, venue_id, venue_name, from_at, to_at, reported_at
          FROM exposure_notices ORDER BY reported_at
          """)
      while let row = try notices.next() {
        stored.notices.append(
          ExposureNotice(
            accountId: row["account_id"], dependantId: row["dependant_id"],
            venueId: row["venue_id"], venueName: row["venue_name"], from: row["from_at"],
            to: row["to_at"], reportedAt: row["reported_at"]))
      }
      return stored
    }
  }

  public func inserting(_ venue: Venue) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          INSERT INTO venues (id, owner_id, name, lon, lat, address, code, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          venue.id, venue.ownerId, venue.name, venue.longitude, venue.latitude, venue.address,
          venue.code, venue.createdAt.timeIntervalSince1970,
        ])
    }
  }

  public func syncingCode(of venue: Int64, current: @escaping @Sendable () -> String?)
    -> any DurableWrite
  {
    TransactionWrite { db in
      guard let code = current() else { return }
      // The code replaced is kept: its page says the code changed.
      try db.execute(
        sql: "UPDATE venues SET previous_code = code, code = ? WHERE id = ? AND code != ?",
        arguments: [code, venue, code])
    }
  }

  public func inserting(_ dependant: Dependant) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          INSERT INTO venue_dependants (id, account_id, name, removed, created_at)
          VALUES (?, ?, ?, 0, ?)
          """,
        arguments: [
          dependant.id, dependant.accountId, dependant.name,
          dependant.createdAt.timeIntervalSince1970,
        ])
    }
  }

  public func removingDependant(_ id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "UPDATE venue_dependants SET removed = 1 WHERE id = ?", arguments: [id])
    }
  }

  public func syncingVisit(_ id: Int64, current: @escaping @Sendable () -> Visit?)
    -> any DurableWrite
  {
    TransactionWrite { db in
      guard let visit = current() else {
        try db.cachedStatement(sql: "DELETE FROM venue_visits WHERE id = ?")
          .execute(arguments: [id])
        return
      }
      try db.cachedStatement(
        sql: """
          INSERT INTO venue_visits
            (id, venue_id, account_id, dependant_id, checked_in_at, checked_out_at)
          VALUES (?, ?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET checked_out_at = excluded.checked_out_at
          """
      ).execute(arguments: [
        id, visit.venueId, visit.accountId, visit.dependantId == 0 ? nil : visit.dependantId,
        visit.start, visit.isOpen ? nil : visit.end,
      ])
    }
  }

  public func syncingFavorite(
    account: Int64, venue: Int64, current: @escaping @Sendable () -> Double?
  ) -> any DurableWrite {
    TransactionWrite { db in
      if let added = current() {
        try db.execute(
          sql:
            "INSERT OR REPLACE INTO venue_favorites (account_id, venue_id, added_at) VALUES (?, ?, ?)",
          arguments: [account, venue, added])
      } else {
        try db.execute(
          sql: "DELETE FROM venue_favorites WHERE account_id = ? AND venue_id = ?",
          arguments: [account, venue])
      }
    }
  }

  public func syncingGuest(_ id: Int64, current: @escaping @Sendable () -> GuestVisit?)
    -> any DurableWrite
  {
    TransactionWrite { db in
      guard let guest = current() else {
        try db.execute(sql: "DELETE FROM venue_guests WHERE id = ?", arguments: [id])
        return
      }
      try db.execute(
        sql: """
          INSERT INTO venue_guests
            (id, venue_id, name, email, phone, checked_in_at, checked_out_at, notified)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET notified = excluded.notified
          """,
        arguments: [
          id, guest.venueId, guest.name, guest.email, guest.phone, guest.start, guest.end,
          guest.notified,
        ])
    }
  }

  public func inserting(_ notices: [ExposureNotice]) -> any DurableWrite {
    TransactionWrite { db in
      for n in notices {
        try db.execute(
          sql: """
            INSERT OR IGNORE INTO exposure_notices
              (account_id, dependant_id, venue_id, venue_name, from_at, to_at, reported_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            n.accountId, n.dependantId, n.venueId, n.venueName, n.from, n.to, n.reportedAt,
          ])
      }
    }
  }
}
