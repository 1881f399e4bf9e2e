import Foundation
import Logging
import NIOCore
import Pins
import PostgresNIO
import PostgresStore

/// Moving an embedded store's pins, votes and photos into a database (`cardatlas migrate
/// --to`), and checking they arrived; as `CardsTransfer` does for the cards. A photo's bytes
/// move from its file into `media_files` under the same name.
public enum PinsTransfer {
  /// What moves: as the embedded store's storage reads it, with each photo's bytes by name.
  public struct Tables: Sendable {
    public var pins: [Pin]
    public var votes: [PinVote]
    public var photos: [String: [UInt8]]
    public var nextId: Int64

    public init(pins: [Pin], votes: [PinVote], photos: [String: [UInt8]], nextId: Int64) {
      self.pins = pins
      self.votes = votes
      self.photos = photos
      self.nextId = nextId
    }
  }

  /// Writes `tables` into `store`'s pin tables (empty: the cards' check found the database
  /// so), then moves the id sequence past the highest id the embedded store gave.
  public static func fill(
    _ store: PostgresStore, with tables: Tables, chunk: Int = 1_000, logger: Logger
  ) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    try await MediaTransfer.insert(
      tables.photos, kind: PostgresPins.photoKind, on: connection, logger: logger)
    for part in tables.pins.chunks(chunk) {
      // Arrays hold no NULL here: '', NaN and -1 stand for none.
      try await connection.query(
        """
        INSERT INTO pins (
          id, owner_id, geom, radius, caption, taken_at, created_at, photo, photo_type,
          photo_width, photo_height, photo_bytes)
        SELECT id, owner, ST_SetSRID(ST_MakePoint(lon, lat), 4326), radius, NULLIF(caption, ''),
          CASE WHEN taken = 'NaN' THEN NULL ELSE to_timestamp(taken) END, to_timestamp(created),
          NULLIF(photo, ''), NULLIF(type, ''), NULLIF(width, -1), NULLIF(height, -1),
          NULLIF(size, -1)
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.ownerId)), \(part.map(\.longitude)),
          \(part.map(\.latitude)), \(part.map(\.radius)), \(part.map { $0.caption ?? "" }),
          \(part.map { $0.takenAt?.timeIntervalSince1970 ?? .nan }),
          \(part.map(\.createdAt.timeIntervalSince1970)), \(part.map { $0.photo?.name ?? "" }),
          \(part.map { $0.photo?.type ?? "" }),
          \(part.map { Int32(clamping: $0.photo?.width ?? -1) }),
          \(part.map { Int32(clamping: $0.photo?.height ?? -1) }),
          \(part.map { Int32(clamping: $0.photo?.bytes ?? -1) }))
          AS moved (id, owner, lon, lat, radius, caption, taken, created, photo, type, width,
            height, size)
        """, logger: logger)
    }
    for part in tables.votes.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO pin_votes (pin_id, account_id, vote)
        SELECT * FROM unnest(
          \(part.map(\.pin)), \(part.map(\.account)), \(part.map { Int16($0.vote) }))
        """, logger: logger)
    }
    try await connection.run(
      "SELECT setval('pin_id_blocks', \(tables.nextId), false)", logger: logger)
  }

  /// What the database's pin tables hold, summed up as `PinsSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> PinsSummary
  {
    try await store.snapshot { connection, _ in
      let (pins, votes) = try await PostgresPins.read(on: connection, logger: logger)
      let photos = try await MediaTransfer.read(
        kind: PostgresPins.photoKind, on: connection, logger: logger)
      return PinsSummary(Tables(pins: pins, votes: votes, photos: photos, nextId: 0))
    }
  }
}

/// Counts and an order-free checksum of the pins (every column), the votes and the photos'
/// bytes.
public struct PinsSummary: Equatable, Sendable, CustomStringConvertible {
  public let pins: Int
  public let votes: Int
  public let photos: Int
  public let checksum: UInt64

  public init(_ tables: PinsTransfer.Tables) {
    pins = tables.pins.count
    votes = tables.votes.count
    photos = tables.photos.count
    var sum = TransferChecksumSum()
    for pin in tables.pins {
      sum.add {
        $0.add("pin")
        $0.add(pin.id)
        $0.add(pin.ownerId)
        $0.add(String(pin.longitude))
        $0.add(String(pin.latitude))
        $0.add(String(pin.radius))
        $0.add(pin.caption ?? "-")
        $0.add(pin.takenAt.map { Int64($0.timeIntervalSince1970.rounded()) } ?? -1)
        $0.add(Int64(pin.createdAt.timeIntervalSince1970.rounded()))
        $0.add(
          pin.photo.map { "\($0.name) \($0.type) \($0.width) \($0.height) \($0.bytes)" } ?? "-")
      }
    }
    for vote in tables.votes {
      sum.add {
        $0.add("vote")
        $0.add(vote.pin)
        $0.add(vote.account)
        $0.add(Int64(vote.vote))
      }
    }
    MediaTransfer.add(tables.photos, to: &sum)
    checksum = sum.value
  }

  public var description: String {
    "\(pins) pins (\(votes) votes, \(photos) photos), checksum " + String(checksum, radix: 16)
  }
}
