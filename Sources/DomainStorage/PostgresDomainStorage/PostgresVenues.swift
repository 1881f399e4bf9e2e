import Durability
import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Synchronization
import Venues

/// The venues in PostgreSQL, in tables named as the embedded store's: `venues` (the place a
/// PostGIS point under a GiST index; its code unique), `venue_dependants`, `venue_visits` (times
/// in seconds since 1970, as the nodes hold them; an open visit's end NULL), `venue_guests`,
/// `venue_favorites` and `exposure_notices`. Ids come in blocks. Each write's `VenueChange` rides in the change
/// feed to every node (`consumer(into:)`).
public final class PostgresVenues: VenueStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "venues-v1",
      [
        """
        CREATE TABLE venues (
          id bigint PRIMARY KEY,
          owner_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          name text NOT NULL,
          geom geometry(Point, 4326) NOT NULL,
          address text,
          -- What the QR code holds.
          code text NOT NULL UNIQUE,
          created_at timestamptz NOT NULL)
        """,
        "CREATE INDEX venues_by_owner ON venues (owner_id)",
        "CREATE INDEX venues_geom ON venues USING gist (geom)",
        """
        CREATE TABLE venue_dependants (
          id bigint PRIMARY KEY,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          name text NOT NULL,
          removed boolean NOT NULL,
          created_at timestamptz NOT NULL)
        """,
        "CREATE INDEX venue_dependants_by_account ON venue_dependants (account_id)",
        """
        CREATE TABLE venue_visits (
          id bigint PRIMARY KEY,
          venue_id bigint NOT NULL REFERENCES venues ON DELETE CASCADE,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          dependant_id bigint REFERENCES venue_dependants ON DELETE CASCADE,
          checked_in_at double precision NOT NULL,
          checked_out_at double precision)
        """,
        "CREATE INDEX venue_visits_by_venue ON venue_visits (venue_id, checked_in_at)",
        "CREATE INDEX venue_visits_by_account ON venue_visits (account_id, checked_in_at)",
        """
        CREATE TABLE venue_favorites (
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          venue_id bigint NOT NULL REFERENCES venues ON DELETE CASCADE,
          added_at double precision NOT NULL,
          PRIMARY KEY (account_id, venue_id))
        """,
        // What a visitor was told of an exposure: the venue (its name kept as it was) and a
        // window, never who. dependant_id 0: the account itself.
        """
        CREATE TABLE exposure_notices (
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          dependant_id bigint NOT NULL,
          venue_id bigint NOT NULL,
          venue_name text NOT NULL,
          from_at double precision NOT NULL,
          to_at double precision NOT NULL,
          reported_at double precision NOT NULL,
          PRIMARY KEY (account_id, dependant_id, venue_id, from_at, to_at))
        """,
        "CREATE SEQUENCE venue_id_blocks INCREMENT BY \(blockSize)",
        "CREATE SEQUENCE venue_dependant_id_blocks INCREMENT BY \(blockSize)",
        "CREATE SEQUENCE venue_visit_id_blocks INCREMENT BY \(blockSize)",
      ]),
    // Guests checked in from a venue's page (their ids from the visits' blocks), and the code
    // each venue's last rotation replaced (its page says the code changed).
    PostgresMigration(
      "venues-v2",
      [
        "ALTER TABLE venues ADD COLUMN previous_code text",
        """
        CREATE TABLE venue_guests (
          id bigint PRIMARY KEY,
          venue_id bigint NOT NULL REFERENCES venues ON DELETE CASCADE,
          name text NOT NULL,
          email text,
          phone text,
          checked_in_at double precision NOT NULL,
          checked_out_at double precision NOT NULL,
          notified boolean NOT NULL DEFAULT false,
          CHECK (email IS NOT NULL OR phone IS NOT NULL))
        """,
        "CREATE INDEX venue_guests_by_venue ON venue_guests (venue_id, checked_in_at)",
      ]),
  ]

  static let blockSize: Int64 = 1_000
  /// The feed section's source for venue changes.
  static let source: UInt8 = 10

  let store: PostgresStore
  public let ids: VenueIDs?
  private let loaded: LoadedOnce<StoredVenues>
  private let position: FeedPosition
  private let logger: Logger

  /// Reads every table in one snapshot, and takes this node's first blocks of ids.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    let (stored, position) = try await store.snapshot { connection, position in
      (try await Self.read(on: connection, logger: logger), position)
    }
    loaded = LoadedOnce(stored)
    self.position = position
    func blocks(_ sequence: String) async throws -> PostgresIDBlocks {
      try await PostgresIDBlocks(
        sequence: sequence, blockSize: Self.blockSize, connector: store.connector, logger: logger)
    }
    ids = VenueIDs(
      venues: try await blocks("venue_id_blocks"),
      dependants: try await blocks("venue_dependant_id_blocks"),
      visits: try await blocks("venue_visit_id_blocks"))
  }

  /// Hands on what was read at start, once.
  public func load() throws -> StoredVenues {
    loaded.take() ?? StoredVenues()
  }

  /// Applies every other node's venue changes to `venues`, from where the load read.
  public func consumer(into venues: Venues) -> FeedConsumer {
    .changes(
      VenueChange.self, source: Self.source, after: position, store: store, logger: logger
    ) { change, own in venues.apply(followed: change, own: own) }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(writes, completion: completion)
  }

  public func inserting(_ venue: Venue) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        """
        INSERT INTO venues (id, owner_id, name, geom, address, code, created_at)
        VALUES (\(venue.id), \(venue.ownerId), \(venue.name),
          ST_SetSRID(ST_MakePoint(\(venue.longitude), \(venue.latitude)), 4326), \(venue.address),
          \(venue.code), \(venue.createdAt))
        """, logger: logger)
      return VenueChange.venue(venue)
    }
  }

  public func syncingCode(of venue: Int64, current: @escaping @Sendable () -> String?)
    -> any DurableWrite
  {
    SyncedWrite(source: Self.source) { connection, logger in
      let code = current()
      if let code {
        // The code replaced is kept: its page says the code changed.
        try await connection.query(
          """
          UPDATE venues SET previous_code = code, code = \(code)
          WHERE id = \(venue) AND code <> \(code)
          """, logger: logger)
      }
      return VenueChange.code(venue: venue, code: code)
    }
  }

  public func inserting(_ dependant: Dependant) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        """
        INSERT INTO venue_dependants (id, account_id, name, removed, created_at)
        VALUES (\(dependant.id), \(dependant.accountId), \(dependant.name), false,
          \(dependant.createdAt))
        """, logger: logger)
      return VenueChange.dependant(dependant)
    }
  }

  public func removingDependant(_ id: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        "UPDATE venue_dependants SET removed = true WHERE id = \(id)", logger: logger)
      return VenueChange.dependantRemoved(id)
    }
  }

  public func syncingVisit(_ id: Int64, current: @escaping @Sendable () -> Visit?)
    -> any DurableWrite
  {
    SyncedWrite(source: Self.source) { connection, logger in
      guard let visit = current() else {
        try await connection.query("DELETE FROM venue_visits WHERE id = \(id)", logger: logger)
        return VenueChange.visit(id: id, nil)
      }
      let dependant = visit.dependantId == 0 ? nil : visit.dependantId
      let end = visit.isOpen ? nil : visit.end
      try await connection.query(
        """
        INSERT INTO venue_visits
          (id, venue_id, account_id, dependant_id, checked_in_at, checked_out_at)
        VALUES (\(id), \(visit.venueId), \(visit.accountId), \(dependant), \(visit.start), \(end))
        ON CONFLICT (id) DO UPDATE SET checked_out_at = excluded.checked_out_at
        """, logger: logger)
      return VenueChange.visit(id: id, StoredVisit(visit))
    }
  }

  public func syncingFavorite(
    account: Int64, venue: Int64, current: @escaping @Sendable () -> Double?
  ) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      let added = current()
      if let added {
        try await connection.query(
          """
          INSERT INTO venue_favorites (account_id, venue_id, added_at)
          VALUES (\(account), \(venue), \(added))
          ON CONFLICT (account_id, venue_id) DO UPDATE SET added_at = excluded.added_at
          """, logger: logger)
      } else {
        try await connection.query(
          "DELETE FROM venue_favorites WHERE account_id = \(account) AND venue_id = \(venue)",
          logger: logger)
      }
      return VenueChange.favorite(account: account, venue: venue, addedAt: added)
    }
  }

  public func syncingGuest(_ id: Int64, current: @escaping @Sendable () -> GuestVisit?)
    -> any DurableWrite
  {
    SyncedWrite(source: Self.source) { connection, logger in
      guard let guest = current() else {
        try await connection.query("DELETE FROM venue_guests WHERE id = \(id)", logger: logger)
        return VenueChange.guest(id: id, nil)
      }
      try await connection.query(
        """
        INSERT INTO venue_guests
          (id, venue_id, name, email, phone, checked_in_at, checked_out_at, notified)
        VALUES (\(id), \(guest.venueId), \(guest.name), \(guest.email), \(guest.phone),
          \(guest.start), \(guest.end), \(guest.notified))
        ON CONFLICT (id) DO UPDATE SET notified = excluded.notified
        """, logger: logger)
      return VenueChange.guest(id: id, guest)
    }
  }

  public func inserting(_ notices: [ExposureNotice]) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      for n in notices {
        try await connection.query(
          """
          INSERT INTO exposure_notices
            (account_id, dependant_id, venue_id, venue_name, from_at, to_at, reported_at)
          VALUES (\(n.accountId), \(n.dependantId), \(n.venueId), \(n.venueName), \(n.from),
            \(n.to), \(n.reportedAt))
          ON CONFLICT DO NOTHING
          """, logger: logger)
      }
      return VenueChange.notices(notices)
    }
  }

  /// Every table, as `load` hands it on (and `cardatlas migrate` checks it).
  static func read(on connection: PostgresConnection, logger: Logger) async throws
    -> StoredVenues
  {
    var stored = StoredVenues()
    for try await (id, owner, name, longitude, latitude, address, code, created, previous)
      in try await connection.query(
        """
        SELECT id, owner_id, name, ST_X(geom), ST_Y(geom), address, code, created_at,
          previous_code
        FROM venues
        """, logger: logger
      ).decode((Int64, Int64, String, Double, Double, String?, String, Date, String?).self)
    {
      stored.venues.append(
        Venue(
          id: id, ownerId: owner, name: name, longitude: longitude, latitude: latitude,
          address: address, code: code, createdAt: created, previousCode: previous))
    }
    for try await (id, venue, name, email, phone, start, end, notified)
      in try await connection.query(
        """
        SELECT id, venue_id, name, email, phone, checked_in_at, checked_out_at, notified
        FROM venue_guests ORDER BY checked_in_at, id
        """, logger: logger
      ).decode((Int64, Int64, String, String?, String?, Double, Double, Bool).self)
    {
      stored.guests.append(
        GuestVisit(
          id: id, venueId: venue, name: name, email: email, phone: phone, start: start,
          end: end, notified: notified))
    }
    for try await (id, account, name, removed, created) in try await connection.query(
      "SELECT id, account_id, name, removed, created_at FROM venue_dependants ORDER BY id",
      logger: logger
    ).decode((Int64, Int64, String, Bool, Date).self) {
      stored.dependants.append(
        Dependant(id: id, accountId: account, name: name, removed: removed, createdAt: created))
    }
    for try await (id, venue, account, dependant, start, end) in try await connection.query(
      """
      SELECT id, venue_id, account_id, dependant_id, checked_in_at, checked_out_at
      FROM venue_visits ORDER BY checked_in_at, id
      """, logger: logger
    ).decode((Int64, Int64, Int64, Int64?, Double, Double?).self) {
      stored.visits.append(
        Visit(
          id: id, venueId: venue, accountId: account, dependantId: dependant ?? 0, start: start,
          end: end ?? .infinity))
    }
    for try await (account, venue, added) in try await connection.query(
      "SELECT account_id, venue_id, added_at FROM venue_favorites", logger: logger
    ).decode((Int64, Int64, Double).self) {
      stored.favorites.append((account, venue, added))
    }
    for try await (account, dependant, venue, name, from, to, reported)
      in try await connection.query(
        """
        SELECT account_id, dependant_id, venue_id, venue_name, from_at, to_at, reported_at
        FROM exposure_notices ORDER BY reported_at
        """, logger: logger
      ).decode((Int64, Int64, Int64, String, Double, Double, Double).self)
    {
      stored.notices.append(
        ExposureNotice(
          accountId: account, dependantId: dependant, venueId: venue, venueName: name,
          from: from, to: to, reportedAt: reported))
    }
    // Ids come from blocks: these only count on past what is loaded (visits' table slots).
    stored.nextVenue = (stored.venues.map(\.id).max() ?? 0) + 1
    stored.nextDependant = (stored.dependants.map(\.id).max() ?? 0) + 1
    stored.nextVisit = (stored.visits.map(\.id).max() ?? 0) + 1
    stored.nextGuest = (stored.guests.map(\.id).max() ?? 0) + 1
    return stored
  }
}
