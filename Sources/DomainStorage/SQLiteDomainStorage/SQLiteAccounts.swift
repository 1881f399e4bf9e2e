import Accounts
import DomainSupport
import Foundation
import GRDB
import Store

/// The accounts in the embedded store: `accounts` (a username stored only for accounts made
/// before accounts-v3; since, the id's), `account_sessions` (a token's hash only),
/// `password_resets`, `account_identities`, and the usernames' key in `id_keys`.
public struct SQLiteAccounts: AccountStorage, StoreBacked {
  let store: Store

  public init(_ store: Store) { self.store = store }

  /// The tables' migrations, frozen, first of all the domain's.
  public static let migrations = [accountsV1, accountsV2, accountsV3]

  /// The columns `account(_:usernames:)` reads, in its order.
  static let columns = "id, email, username, password_hash, is_pro, role, created_at"

  public func load() throws -> StoredAccounts {
    try store.read { db in
      let usernames = try Self.usernames(db)
      let sequences = try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence")
      func next(_ table: String) -> Int64 {
        (sequences.first { $0["name"] == table }.map { $0["seq"] as Int64 } ?? 0) + 1
      }
      return StoredAccounts(
        usernames: usernames,
        accounts: try Self.accounts(db, usernames: usernames),
        sessions: try Row.fetchAll(
          db, sql: "SELECT id, account_id, token_hash, device, created_at FROM account_sessions"
        ).map {
          StoredSession(
            id: $0[0], accountId: $0[1], tokenHash: $0[2], device: $0[3],
            createdAt: Date(timeIntervalSince1970: $0[4]))
        },
        resets: try Row.fetchAll(
          db, sql: "SELECT token_hash, account_id, expires_at FROM password_resets"
        ).map {
          PasswordReset(
            tokenHash: $0[0], accountId: $0[1], expiresAt: Date(timeIntervalSince1970: $0[2]))
        },
        identities: try Row.fetchAll(
          db, sql: "SELECT provider, subject, account_id FROM account_identities"
        ).map { (ProviderSubject(provider: $0[0], subject: $0[1]), account: $0[2]) },
        nextAccount: next("accounts"), nextSession: next("account_sessions"))
    }
  }

  /// The usernames' key itself, for a store the accounts move to (`cardatlas migrate`).
  public func usernamesKey() throws -> Data {
    try store.read { try IdKeys.key("usernames", $0) }
  }

  public func inserting(_ account: Account) -> any DurableWrite {
    TransactionWrite { db in try Self.insert(account, db) }
  }

  public func usingUp(_ id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'accounts'",
        arguments: [id])
    }
  }

  /// Its sessions, resets and links go by the tables' ON DELETE CASCADE too; deleted here
  /// as well, as a store without foreign keys would need.
  public func deleting(_ id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "DELETE FROM account_sessions WHERE account_id = ?", arguments: [id])
      try db.execute(sql: "DELETE FROM password_resets WHERE account_id = ?", arguments: [id])
      try db.execute(sql: "DELETE FROM account_identities WHERE account_id = ?", arguments: [id])
      try db.execute(sql: "DELETE FROM accounts WHERE id = ?", arguments: [id])
    }
  }

  public func settingPro(_ isPro: Bool, of id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(sql: "UPDATE accounts SET is_pro = ? WHERE id = ?", arguments: [isPro, id])
    }
  }

  public func settingRole(_ role: Account.Role, of id: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: "UPDATE accounts SET role = ? WHERE id = ?", arguments: [role.rawValue, id])
    }
  }

  public func settingPassword(_ hash: String, of id: Int64, closing sessions: [Int64])
    -> any DurableWrite
  {
    TransactionWrite { db in
      try db.execute(
        sql: "UPDATE accounts SET password_hash = ? WHERE id = ?", arguments: [hash, id])
      try db.execute(sql: "DELETE FROM password_resets WHERE account_id = ?", arguments: [id])
      try Self.deleteSessions(sessions, db)
    }
  }

  public func opening(_ session: StoredSession) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: """
          INSERT INTO account_sessions (id, account_id, token_hash, device, created_at)
          VALUES (?, ?, ?, ?, ?)
          """,
        arguments: [
          session.id, session.accountId, session.tokenHash, session.device,
          session.createdAt.timeIntervalSince1970,
        ])
    }
  }

  public func closing(_ sessions: [Int64]) -> any DurableWrite {
    TransactionWrite { db in try Self.deleteSessions(sessions, db) }
  }

  public func requesting(_ reset: PasswordReset) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: "INSERT INTO password_resets (token_hash, account_id, expires_at) VALUES (?, ?, ?)",
        arguments: [reset.tokenHash, reset.accountId, reset.expiresAt.timeIntervalSince1970])
    }
  }

  /// One node: the token left memory before this write, so no other use can race it.
  public func spending(_ reset: PasswordReset) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: "DELETE FROM password_resets WHERE token_hash = ?", arguments: [reset.tokenHash])
    }
  }

  public func linking(_ identity: ProviderSubject, to account: Int64) -> any DurableWrite {
    TransactionWrite { db in
      try db.execute(
        sql: "INSERT INTO account_identities (provider, subject, account_id) VALUES (?, ?, ?)",
        arguments: [identity.provider, identity.subject, account])
    }
  }

  // MARK: Shared with the bulk import

  /// The usernames' key, from `id_keys` (written by accounts-v3).
  public static func usernames(_ db: Database) throws -> IdText {
    Accounts.usernames(key: try IdKeys.key("usernames", db))
  }

  /// An account's row (`columns`): its username the one it was given, else its id's.
  /// Every account: the rows' values read on this thread (a cursor, not a `Row` kept per
  /// account), the accounts made on every core (a username drawn from its id is FF1's work:
  /// a million of them were a quarter of the accounts' start).
  static func accounts(_ db: Database, usernames: IdText) throws -> [Account] {
    var rows: [AccountRow] = []
    rows.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM accounts") ?? 0)
    let cursor = try Row.fetchCursor(db, sql: "SELECT \(columns) FROM accounts")
    while let row = try cursor.next() { rows.append(AccountRow(row)) }
    return try rows.concurrentMap { $0.account(usernames: usernames) }
  }

  static func account(_ row: Row, usernames: IdText) -> Account {
    AccountRow(row).account(usernames: usernames)
  }

  /// An account's row (`columns`) as plain values.
  struct AccountRow: Sendable {
    let id: Int64
    let email: String
    let username: String?
    let passwordHash: String?
    let isPro: Bool
    let role: String
    let created: Double

    init(_ row: Row) {
      (id, email, username, passwordHash, isPro, role, created) = (
        row[0], row[1], row[2], row[3], row[4], row[5], row[6]
      )
    }

    func account(usernames: IdText) -> Account {
      Account(
        id: id, email: email, username: username ?? usernames.text(id),
        passwordHash: passwordHash, isPro: isPro, role: Account.Role(rawValue: role) ?? .none,
        createdAt: Date(timeIntervalSince1970: created))
    }
  }

  /// Inserts a new account's row through a cached statement (GRDB's `Codable` insert was a
  /// bulk import's second-largest write cost); a new account's username is its id's, not
  /// stored.
  static func insert(_ account: Account, _ db: Database) throws {
    try db.cachedStatement(
      sql: """
        INSERT INTO accounts (id, email, email_key, password_hash, is_pro, role, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(
      arguments: [
        account.id, account.email, account.emailKey, account.storedPasswordHash, account.isPro,
        account.role.rawValue, account.createdAt.timeIntervalSince1970,
      ])
  }

  private static func deleteSessions(_ ids: [Int64], _ db: Database) throws {
    for id in ids {
      try db.execute(sql: "DELETE FROM account_sessions WHERE id = ?", arguments: [id])
    }
  }
}

/// The keys of texts made from ids (`IdText`), one per purpose, in `id_keys`.
enum IdKeys {
  static func key(_ purpose: String, _ db: Database) throws -> Data {
    guard
      let key = try Data.fetchOne(
        db, sql: "SELECT key FROM id_keys WHERE purpose = ?", arguments: [purpose])
    else { throw DatabaseError(message: "id_keys has no key for \(purpose)") }
    return key
  }
}
