import Assets
import Foundation
import GRDB
import MediaFiles
import Store

/// The uploads' rows in the embedded store's `assets` table.
public struct SQLiteAssets: AssetStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The table's migrations, frozen, after the accounts'.
  public static let migrations = [assetsV1]

  public func loadAll() throws -> [Asset] {
    let rows = try store.read { db in
      try Row.fetchAll(
        db,
        sql: "SELECT id, owner_id, kind, type, bytes, width, height, created_at FROM assets")
    }
    return rows.compactMap { row -> Asset? in
      guard let kind = AssetKind(rawValue: row["kind"]),
        let type = MediaType(rawValue: row["type"])
      else { return nil }
      return Asset(
        id: row["id"], ownerId: row["owner_id"], kind: kind, type: type, bytes: row["bytes"],
        width: row["width"], height: row["height"],
        createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }
  }

  /// The quota is the memory's to keep: one node holds every upload.
  public func inserting(_ asset: Asset, quota: Int) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          INSERT INTO assets (id, owner_id, kind, type, bytes, width, height, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          asset.id, asset.ownerId, asset.kind.rawValue, asset.type.rawValue, asset.bytes,
          asset.width, asset.height, asset.createdAt.timeIntervalSince1970,
        ])
    }
  }

  public func deleting(_ ids: [String]) -> any DurableWrite {
    TransactionWrite { db in
      for id in ids { try db.execute(sql: "DELETE FROM assets WHERE id = ?", arguments: [id]) }
    }
  }
}
