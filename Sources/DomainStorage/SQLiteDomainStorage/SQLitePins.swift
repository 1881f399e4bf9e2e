import Foundation
import GRDB
import Pins
import Store

/// The pins in the embedded store: `pins` (a photo's file named in its row) and `pin_votes`.
public struct SQLitePins: PinStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, after the accounts'.
  public static let migrations = [pinsV1]

  public func load() throws -> (pins: [Pin], votes: [PinVote], nextId: Int64) {
    let (rows, votes, sequence) = try store.read { db in
      (
        try Row.fetchAll(
          db,
          sql: """
            SELECT id, owner_id, lon, lat, radius, caption, taken_at, created_at, photo,
              photo_type, photo_width, photo_height, photo_bytes
            FROM pins
            """),
        try Row.fetchAll(db, sql: "SELECT pin_id, account_id, vote FROM pin_votes"),
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'pins'")
      )
    }
    let pins = rows.map { row in
      Pin(
        id: row["id"], ownerId: row["owner_id"], longitude: row["lon"], latitude: row["lat"],
        radius: row["radius"], caption: row["caption"],
        takenAt: (row["taken_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
        createdAt: Date(timeIntervalSince1970: row["created_at"]),
        photo: (row["photo"] as String?).map { name in
          PinPhoto(
            name: name, type: row["photo_type"], width: row["photo_width"],
            height: row["photo_height"], bytes: row["photo_bytes"])
        })
    }
    return (
      pins, votes.map { PinVote(pin: $0["pin_id"], account: $0["account_id"], vote: $0["vote"]) },
      (sequence ?? 0) + 1
    )
  }

  public func inserting(_ pin: Pin) -> any DurableWrite {
    TransactionWrite { db in
      try db.cachedStatement(
        sql: """
          INSERT INTO pins (id, owner_id, lon, lat, radius, caption, taken_at, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """
      ).execute(
        arguments: [
          pin.id, pin.ownerId, pin.longitude, pin.latitude, pin.radius, pin.caption,
          pin.takenAt?.timeIntervalSince1970, pin.createdAt.timeIntervalSince1970,
        ])
    }
  }

  /// Its votes go by the table's ON DELETE CASCADE.
  public func deleting(_ id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [id])
    }
  }

  public func voting(_ vote: Int8, by account: Int64, on pin: Int64) -> any DurableWrite {
    TransactionWrite { db in
      if vote == 0 {
        try db.execute(
          sql: "DELETE FROM pin_votes WHERE pin_id = ? AND account_id = ?",
          arguments: [pin, account])
      } else {
        try db.cachedStatement(
          sql: "INSERT OR REPLACE INTO pin_votes (pin_id, account_id, vote) VALUES (?, ?, ?)"
        ).execute(arguments: [pin, account, vote])
      }
    }
  }

  public func settingPhoto(_ photo: PinPhoto, of pin: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          UPDATE pins SET photo = ?, photo_type = ?, photo_width = ?, photo_height = ?,
            photo_bytes = ?
          WHERE id = ?
          """,
        arguments: [photo.name, photo.type, photo.width, photo.height, photo.bytes, pin])
    }
  }

  public func deletingAll(of account: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM pin_votes WHERE account_id = ?", arguments: [account])
      try db.execute(sql: "DELETE FROM pins WHERE owner_id = ?", arguments: [account])
    }
  }
}
