import Documents
import Foundation
import GRDB
import MediaFiles
import Store

/// The documents' rows in the embedded store's `documents` table.
public struct SQLiteDocuments: DocumentStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The table's migrations, frozen, after the accounts'.
  public static let migrations = [documentsV1]

  public func loadAll() throws -> [Document] {
    let rows = try store.read { db in
      try Row.fetchAll(
        db, sql: "SELECT id, account_id, kind, day, type, size, file, created_at FROM documents")
    }
    return rows.compactMap { row -> Document? in
      guard let kind = Document.Kind(rawValue: row["kind"]),
        let type = MediaType(rawValue: row["type"])
      else { return nil }
      return Document(
        id: row["id"], ownerId: row["account_id"], kind: kind, day: row["day"], type: type,
        size: row["size"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
        file: row["file"])
    }
  }

  /// The limit is the memory's to keep: one node holds every document.
  public func inserting(_ document: Document, limit: Int) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          INSERT INTO documents (id, account_id, kind, day, type, size, file, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          document.id, document.ownerId, document.kind.rawValue, document.day,
          document.type.rawValue, document.size, document.file,
          document.createdAt.timeIntervalSince1970,
        ])
    }
  }

  public func deleting(_ id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM documents WHERE id = ?", arguments: [id])
    }
  }

  public func deletingAll(of account: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM documents WHERE account_id = ?", arguments: [account])
    }
  }
}
