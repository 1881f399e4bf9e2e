import Crypto
import Foundation
import GRDB
import Store

extension SQLiteAccounts {
  /// accounts-v3: usernames made from ids (`IdText`), so the table no longer keeps an index of
  /// random texts. `id_keys` holds the keys of such texts, the usernames' first; `username`
  /// keeps the random usernames given before (unique among themselves), NULL for accounts made
  /// since. Shipped: frozen.
  static let accountsV3 = StoreMigration("accounts-v3") { db in
    try db.execute(sql: "CREATE TABLE id_keys (purpose TEXT PRIMARY KEY, key BLOB NOT NULL)")
    try db.execute(
      sql: "INSERT INTO id_keys (purpose, key) VALUES ('usernames', ?)",
      arguments: [SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }])
    try StoreMigration.rebuild(
      "accounts",
      as: """
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        email TEXT NOT NULL,
        -- The email lower-cased: unique, so that case never makes a second account.
        email_key TEXT NOT NULL UNIQUE,
        -- A username drawn at random before accounts-v3; NULL: the id's (IdText).
        username TEXT,
        -- scrypt, self-describing; NULL for an account that signs in with an ID token only.
        password_hash TEXT,
        is_pro INTEGER NOT NULL DEFAULT 0,
        role TEXT NOT NULL DEFAULT 'none',
        created_at REAL NOT NULL
        """, db)
    try db.execute(
      sql: """
        CREATE UNIQUE INDEX accounts_by_username ON accounts (username)
          WHERE username IS NOT NULL
        """)
  }
}
