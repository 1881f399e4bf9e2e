import GRDB
import Store

extension SQLiteDocuments {
  /// documents-v1: each account's private documents; the bytes are files in the data
  /// directory's `media/documents`, named by `file`. Shipped: frozen.
  static let documentsV1 = StoreMigration("documents-v1") { db in
    try db.execute(
      sql: """
        CREATE TABLE documents (
          id INTEGER PRIMARY KEY,
          account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          kind TEXT NOT NULL CHECK (kind IN ('VACCINATION', 'TEST-POSITIVE', 'TEST-NEGATIVE')),
          -- The day of the vaccination or test, yyyy-mm-dd.
          day TEXT NOT NULL,
          type TEXT NOT NULL CHECK (type IN ('jpeg', 'png', 'pdf')),
          size INTEGER NOT NULL,
          file TEXT NOT NULL UNIQUE,
          -- Seconds since 1970.
          created_at REAL NOT NULL
        );
        CREATE INDEX documents_by_account ON documents (account_id);
        """)
  }

}
