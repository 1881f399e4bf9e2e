import Durability
import Foundation
import Logging
import Pins
import PostgresNIO
import PostgresStore
import Synchronization

/// The pins in PostgreSQL, in tables named as the embedded store's: `pins` (the centre a PostGIS
/// point under a GiST index, beside the viewing radius in metres; the photo named in the row,
/// its bytes in `media_files`) and `pin_votes`. Ids come in blocks (`PostgresIDBlocks`). Each
/// write's `PinChange` rides in the change feed to every node (`consumer(into:)`).
public final class PostgresPins: PinStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "pins-v1",
      [
        """
        CREATE TABLE pins (
          id bigint PRIMARY KEY,
          owner_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          geom geometry(Point, 4326) NOT NULL,
          -- The viewing circle's radius, in metres.
          radius double precision NOT NULL,
          caption text,
          taken_at timestamptz,
          created_at timestamptz NOT NULL,
          -- The photo's name in media_files, and what it is.
          photo text,
          photo_type text,
          photo_width integer,
          photo_height integer,
          photo_bytes integer)
        """,
        "CREATE INDEX pins_geom ON pins USING gist (geom)",
        "CREATE INDEX pins_by_owner ON pins (owner_id)",
        """
        CREATE TABLE pin_votes (
          pin_id bigint NOT NULL REFERENCES pins ON DELETE CASCADE,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          vote smallint NOT NULL CHECK (vote IN (-1, 1)),
          PRIMARY KEY (pin_id, account_id))
        """,
        "CREATE INDEX pin_votes_by_account ON pin_votes (account_id)",
        "CREATE SEQUENCE pin_id_blocks INCREMENT BY \(blockSize)",
      ])
  ]

  static let blockSize: Int64 = 1_000
  /// The feed section's source for pin changes.
  static let source: UInt8 = 7
  /// The photos' kind in `media_files` (`PostgresMedia`).
  public static let photoKind = "pin-photos"

  let store: PostgresStore
  public let pinIDs: (any IDBlocks)?
  private let loaded: LoadedOnce<(pins: [Pin], votes: [PinVote])>
  private let position: FeedPosition
  private let logger: Logger

  /// Reads the pins and votes in one snapshot, and takes this node's first block of ids.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    let (pins, votes, position) = try await store.snapshot { connection, position in
      let (pins, votes) = try await Self.read(on: connection, logger: logger)
      return (pins, votes, position)
    }
    loaded = LoadedOnce((pins, votes))
    self.position = position
    pinIDs = try await PostgresIDBlocks(
      sequence: "pin_id_blocks", blockSize: Self.blockSize, connector: store.connector,
      logger: logger)
  }

  /// Hands on what was read at start, once. The next id is the blocks'.
  public func load() throws -> (pins: [Pin], votes: [PinVote], nextId: Int64) {
    let read = loaded.take()
    return (read?.pins ?? [], read?.votes ?? [], 1)
  }

  /// Applies every other node's pin changes to `pins`, from where the load read.
  public func consumer(into pins: Pins) -> FeedConsumer {
    .changes(
      PinChange.self, source: Self.source, after: position, store: store, logger: logger
    ) { change, own in pins.apply(followed: change, own: own) }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(writes, completion: completion)
  }

  public func inserting(_ pin: Pin) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        """
        INSERT INTO pins (id, owner_id, geom, radius, caption, taken_at, created_at)
        VALUES (\(pin.id), \(pin.ownerId),
          ST_SetSRID(ST_MakePoint(\(pin.longitude), \(pin.latitude)), 4326), \(pin.radius),
          \(pin.caption), \(pin.takenAt), \(pin.createdAt))
        """, logger: logger)
      return PinChange.added(StoredPin(pin))
    }
  }

  /// Its votes go by the table's ON DELETE CASCADE.
  public func deleting(_ id: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query("DELETE FROM pins WHERE id = \(id)", logger: logger)
      return PinChange.deleted(pin: id)
    }
  }

  public func voting(_ vote: Int8, by account: Int64, on pin: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      if vote == 0 {
        try await connection.query(
          "DELETE FROM pin_votes WHERE pin_id = \(pin) AND account_id = \(account)",
          logger: logger)
      } else {
        try await connection.query(
          """
          INSERT INTO pin_votes (pin_id, account_id, vote) VALUES (\(pin), \(account), \(Int16(vote)))
          ON CONFLICT (pin_id, account_id) DO UPDATE SET vote = excluded.vote
          """, logger: logger)
      }
      return PinChange.vote(pin: pin, account: account, vote: vote)
    }
  }

  public func settingPhoto(_ photo: PinPhoto, of pin: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        """
        UPDATE pins SET photo = \(photo.name), photo_type = \(photo.type),
          photo_width = \(Int32(clamping: photo.width)), photo_height = \(Int32(clamping: photo.height)),
          photo_bytes = \(Int32(clamping: photo.bytes))
        WHERE id = \(pin)
        """, logger: logger)
      return PinChange.photo(pin: pin, photo)
    }
  }

  public func deletingAll(of account: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        "DELETE FROM pin_votes WHERE account_id = \(account)", logger: logger)
      try await connection.query("DELETE FROM pins WHERE owner_id = \(account)", logger: logger)
      return PinChange.deletedAll(account: account)
    }
  }

  /// Every pin and vote, as `load` hands them on (and `cardatlas migrate` checks them).
  static func read(on connection: PostgresConnection, logger: Logger) async throws
    -> ([Pin], [PinVote])
  {
    var pins: [Pin] = []
    typealias Row = (
      Int64, Int64, Double, Double, Double, String?, Date?, Date, String?, String?, Int32?,
      Int32?, Int32?
    )
    for try await row in try await connection.query(
      """
      SELECT id, owner_id, ST_X(geom), ST_Y(geom), radius, caption, taken_at, created_at,
        photo, photo_type, photo_width, photo_height, photo_bytes
      FROM pins
      """, logger: logger
    ).decode(Row.self) {
      var photo: PinPhoto?
      if let name = row.8, let type = row.9, let width = row.10, let height = row.11,
        let bytes = row.12
      {
        photo = PinPhoto(
          name: name, type: type, width: Int(width), height: Int(height), bytes: Int(bytes))
      }
      pins.append(
        Pin(
          id: row.0, ownerId: row.1, longitude: row.2, latitude: row.3, radius: row.4,
          caption: row.5, takenAt: row.6, createdAt: row.7, photo: photo))
    }
    var votes: [PinVote] = []
    for try await (pin, account, vote) in try await connection.query(
      "SELECT pin_id, account_id, vote FROM pin_votes", logger: logger
    ).decode((Int64, Int64, Int16).self) {
      votes.append(PinVote(pin: pin, account: account, vote: Int8(vote)))
    }
    return (pins, votes)
  }
}
