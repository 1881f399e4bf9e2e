import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Venues

/// Moving an embedded store's venues, dependants, visits, guests, favourites and exposure
/// notices into a database (`cardatlas migrate --to`), and checking they arrived; as
/// `CardsTransfer` does for the cards.
public enum VenuesTransfer {
  /// Writes `stored` into `store`'s venue tables (empty: the cards' check found the database
  /// so), then moves the id sequences past the highest ids given.
  public static func fill(
    _ store: PostgresStore, with stored: StoredVenues, chunk: Int = 1_000, logger: Logger
  ) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    for part in stored.venues.chunks(chunk) {
      // Arrays hold no NULL here: '' stands for none.
      try await connection.query(
        """
        INSERT INTO venues (id, owner_id, name, geom, address, code, created_at, previous_code)
        SELECT id, owner, name, ST_SetSRID(ST_MakePoint(lon, lat), 4326), NULLIF(address, ''),
          code, created, NULLIF(previous, '')
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.ownerId)), \(part.map(\.name)),
          \(part.map(\.longitude)), \(part.map(\.latitude)), \(part.map { $0.address ?? "" }),
          \(part.map(\.code)), \(part.map(\.createdAt)), \(part.map { $0.previousCode ?? "" }))
          AS moved (id, owner, name, lon, lat, address, code, created, previous)
        """, logger: logger)
    }
    for part in stored.dependants.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO venue_dependants (id, account_id, name, removed, created_at)
        SELECT * FROM unnest(
          \(part.map(\.id)), \(part.map(\.accountId)), \(part.map(\.name)),
          \(part.map(\.removed)), \(part.map(\.createdAt)))
        """, logger: logger)
    }
    for part in stored.visits.chunks(chunk) {
      // 0 stands for no dependant, NaN for an open visit's end.
      try await connection.query(
        """
        INSERT INTO venue_visits
          (id, venue_id, account_id, dependant_id, checked_in_at, checked_out_at)
        SELECT id, venue, account, NULLIF(dependant, 0), start_at, NULLIF(end_at, 'NaN')
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.venueId)), \(part.map(\.accountId)),
          \(part.map(\.dependantId)), \(part.map(\.start)),
          \(part.map { $0.isOpen ? .nan : $0.end }))
          AS moved (id, venue, account, dependant, start_at, end_at)
        """, logger: logger)
    }
    for part in stored.guests.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO venue_guests
          (id, venue_id, name, email, phone, checked_in_at, checked_out_at, notified)
        SELECT id, venue, name, NULLIF(email, ''), NULLIF(phone, ''), start_at, end_at, told
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.venueId)), \(part.map(\.name)),
          \(part.map { $0.email ?? "" }), \(part.map { $0.phone ?? "" }), \(part.map(\.start)),
          \(part.map(\.end)), \(part.map(\.notified)))
          AS moved (id, venue, name, email, phone, start_at, end_at, told)
        """, logger: logger)
    }
    for part in stored.favorites.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO venue_favorites (account_id, venue_id, added_at)
        SELECT * FROM unnest(\(part.map(\.account)), \(part.map(\.venue)), \(part.map(\.addedAt)))
        """, logger: logger)
    }
    for part in stored.notices.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO exposure_notices
          (account_id, dependant_id, venue_id, venue_name, from_at, to_at, reported_at)
        SELECT * FROM unnest(
          \(part.map(\.accountId)), \(part.map(\.dependantId)), \(part.map(\.venueId)),
          \(part.map(\.venueName)), \(part.map(\.from)), \(part.map(\.to)),
          \(part.map(\.reportedAt)))
        """, logger: logger)
    }
    for (sequence, next) in [
      ("venue_id_blocks", stored.nextVenue), ("venue_dependant_id_blocks", stored.nextDependant),
      // Guests take their ids from the visits' blocks.
      ("venue_visit_id_blocks", max(stored.nextVisit, stored.nextGuest)),
    ] {
      try await connection.run("SELECT setval(\(sequence), \(next), false)", logger: logger)
    }
  }

  /// What the database's venue tables hold, summed up as `VenuesSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> VenuesSummary
  {
    try await store.snapshot { connection, _ in
      VenuesSummary(try await PostgresVenues.read(on: connection, logger: logger))
    }
  }
}

/// Counts and an order-free checksum of every venue table (every column; times to the
/// millisecond).
public struct VenuesSummary: Equatable, Sendable, CustomStringConvertible {
  public let venues: Int
  public let visits: Int
  public let dependants: Int
  public let favorites: Int
  public let notices: Int
  public let guests: Int
  public let checksum: UInt64

  public init(_ stored: StoredVenues) {
    venues = stored.venues.count
    visits = stored.visits.count
    dependants = stored.dependants.count
    favorites = stored.favorites.count
    notices = stored.notices.count
    guests = stored.guests.count
    var sum = TransferChecksumSum()
    func millis(_ seconds: Double) -> Int64 {
      seconds.isFinite ? Int64((seconds * 1_000).rounded()) : -1
    }
    for v in stored.venues {
      sum.add {
        $0.add("venue")
        $0.add(v.id)
        $0.add(v.ownerId)
        $0.add(
          "\(v.name) \(v.longitude) \(v.latitude) \(v.address ?? "-") \(v.code) "
            + (v.previousCode ?? "-"))
        $0.add(Int64(v.createdAt.timeIntervalSince1970.rounded()))
      }
    }
    for d in stored.dependants {
      sum.add {
        $0.add("dependant")
        $0.add(d.id)
        $0.add(d.accountId)
        $0.add("\(d.name) \(d.removed)")
        $0.add(Int64(d.createdAt.timeIntervalSince1970.rounded()))
      }
    }
    for v in stored.visits {
      sum.add {
        $0.add("visit")
        $0.add(v.id)
        $0.add(v.venueId)
        $0.add(v.accountId)
        $0.add(v.dependantId)
        $0.add(millis(v.start))
        $0.add(millis(v.end))
      }
    }
    for g in stored.guests {
      sum.add {
        $0.add("guest")
        $0.add(g.id)
        $0.add(g.venueId)
        $0.add("\(g.name)\n\(g.email ?? "-")\n\(g.phone ?? "-") \(g.notified)")
        $0.add(millis(g.start))
        $0.add(millis(g.end))
      }
    }
    for f in stored.favorites {
      sum.add {
        $0.add("favorite")
        $0.add(f.account)
        $0.add(f.venue)
        $0.add(millis(f.addedAt))
      }
    }
    for n in stored.notices {
      sum.add {
        $0.add("notice")
        $0.add(n.accountId)
        $0.add(n.dependantId)
        $0.add(n.venueId)
        $0.add(n.venueName)
        $0.add(millis(n.from))
        $0.add(millis(n.to))
        $0.add(millis(n.reportedAt))
      }
    }
    checksum = sum.value
  }

  public var description: String {
    "\(venues) venues (\(visits) visits, \(dependants) dependants, \(favorites) favorites, "
      + "\(notices) exposure notices, \(guests) guests), checksum " + String(checksum, radix: 16)
  }
}
