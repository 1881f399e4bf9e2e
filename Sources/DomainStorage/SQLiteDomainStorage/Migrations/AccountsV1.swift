import Store

extension SQLiteAccounts {
  /// accounts-v1: accounts, their sessions and password resets. Shipped: frozen.
  static let accountsV1 = StoreMigration(
    "accounts-v1",
    sql: """
      -- AUTOINCREMENT: a deleted account's id is never given again (sqlite_sequence keeps the
      -- highest), so nothing that still names it can reach a newer account.
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        email TEXT NOT NULL,
        -- The email lower-cased: unique, so that case never makes a second account.
        email_key TEXT NOT NULL UNIQUE,
        username TEXT NOT NULL UNIQUE,
        -- scrypt, self-describing; NULL for an account that signs in with an ID token only.
        password_hash TEXT,
        is_pro INTEGER NOT NULL DEFAULT 0,
        role TEXT NOT NULL DEFAULT 'none',
        created_at REAL NOT NULL
      );
      -- Only a token's SHA-256 is kept.
      CREATE TABLE account_sessions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        device TEXT,
        created_at REAL NOT NULL
      );
      CREATE INDEX account_sessions_by_account ON account_sessions (account_id);
      CREATE TABLE password_resets (
        token_hash TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        expires_at REAL NOT NULL
      );
      -- Who signs in with a provider's ID token: the provider's subject, per provider.
      CREATE TABLE account_identities (
        provider TEXT NOT NULL,
        subject TEXT NOT NULL,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        PRIMARY KEY (provider, subject)
      );
      """)
}
