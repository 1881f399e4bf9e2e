import Accounts
import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// One `AccountStorage` write in PostgreSQL: its statements, and its change in the feed for the
/// other nodes. Run in a savepoint of its own: a unique email or a removed account fails only
/// its command. A reset token's use is refused when its row is gone (`ResetSpent`).
struct AccountWrite: PostgresWrite {
  let change: AccountChange

  init(_ change: AccountChange) { self.change = change }

  var feed: [FeedSection] {
    // Encoding these plain values cannot fail.
    let bytes = (try? JSONEncoder().encode(change)) ?? Data()
    return [FeedSection(source: PostgresAccounts.source, bytes: Array(bytes))]
  }

  var mayBeRefused: Bool {
    if case .spent = change { return true }
    return false
  }

  func applyRefusing(on connection: PostgresConnection, logger: Logger) async throws
    -> AppliedWrite
  {
    guard case .spent(let reset) = change else {
      try await apply(on: connection, logger: logger)
      return AppliedWrite(feed: feed)
    }
    // The row's lock orders two nodes' uses: the second deletes nothing.
    let rows = try await connection.query(
      """
      DELETE FROM password_resets WHERE token_hash = \(reset.tokenHash) AND expires_at > now()
      RETURNING account_id
      """, logger: logger
    ).collect()
    return rows.isEmpty
      ? AppliedWrite(refused: [0: ResetSpent()], feed: []) : AppliedWrite(feed: feed)
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    switch change {
    case .spent:
      if let refused = try await applyRefusing(on: connection, logger: logger).refused[0] {
        throw refused
      }
    case .inserted(let a):
      // The username stored too (unlike the embedded store): SQL users see it, and the
      // database keeps it unique across nodes.
      try await connection.query(
        """
        INSERT INTO accounts (
          id, email, email_key, username, password_hash, is_pro, role, created_at)
        VALUES (\(a.id), \(a.email), \(a.emailKey), \(a.username), \(a.storedPasswordHash),
          \(a.isPro), \(a.role.rawValue), \(a.createdAt))
        """, logger: logger)
    case .usedUp:
      // The id came from this node's block: nothing to keep. The commit still goes (a feed row,
      // as an insert's), so that a taken email's sign-up costs what a new one's does.
      break
    case .deleted(let id):
      // Sessions, resets and links go by ON DELETE CASCADE.
      try await connection.query("DELETE FROM accounts WHERE id = \(id)", logger: logger)
    case .pro(let id, let isPro):
      try await connection.query(
        "UPDATE accounts SET is_pro = \(isPro) WHERE id = \(id)", logger: logger)
    case .role(let id, let role):
      try await connection.query(
        "UPDATE accounts SET role = \(role.rawValue) WHERE id = \(id)", logger: logger)
    case .password(let id, let hash, let closing):
      try await connection.query(
        "UPDATE accounts SET password_hash = \(hash) WHERE id = \(id)", logger: logger)
      try await connection.query(
        "DELETE FROM password_resets WHERE account_id = \(id)", logger: logger)
      try await connection.query(
        "DELETE FROM account_sessions WHERE id = ANY(\(closing))", logger: logger)
    case .opened(let s):
      try await connection.query(
        """
        INSERT INTO account_sessions (id, account_id, token_hash, device, created_at)
        VALUES (\(s.id), \(s.accountId), \(s.tokenHash), \(s.device), \(s.createdAt))
        """, logger: logger)
    case .closed(let ids):
      try await connection.query(
        "DELETE FROM account_sessions WHERE id = ANY(\(ids))", logger: logger)
    case .requested(let r):
      try await connection.query(
        """
        INSERT INTO password_resets (token_hash, account_id, expires_at)
        VALUES (\(r.tokenHash), \(r.accountId), \(r.expiresAt))
        """, logger: logger)
    case .linked(let identity, let account):
      try await connection.query(
        """
        INSERT INTO account_identities (provider, subject, account_id)
        VALUES (\(identity.provider), \(identity.subject), \(account))
        """, logger: logger)
    }
  }
}
