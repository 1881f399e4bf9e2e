import Accounts
import Durability
import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresStore

/// Moving an embedded store's accounts into a database (`cardatlas migrate --to`), and checking
/// they arrived. The usernames' key moves too, so every username, and so every share URL, stays
/// what it was.
public enum AccountsTransfer {
  public struct NotEmpty: Error, CustomStringConvertible {
    public var description: String {
      "the database's accounts table already holds data: migrate into an empty database"
    }
  }

  /// Writes `stored` into `store`'s empty account tables, with `key` as the usernames' key, then
  /// moves the id sequences past the highest ids moved. Through the feed, as any write.
  public static func fill(
    _ store: PostgresStore, with stored: StoredAccounts, usernamesKey key: Data, chunk: Int = 1_000,
    logger: Logger
  ) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    let empty =
      try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM accounts)", logger: logger)
      .collect().first?.decode(Bool.self) ?? false
    guard empty else { throw NotEmpty() }
    // A node started on this database before made a key of its own; no account uses it yet.
    try await connection.query(
      """
      INSERT INTO id_keys (purpose, key) VALUES ('usernames', \(ByteBuffer(bytes: key)))
      ON CONFLICT (purpose) DO UPDATE SET key = excluded.key
      """, logger: logger)
    let writes: [AccountWrite] =
      stored.accounts.map { AccountWrite(.inserted($0)) }
      + stored.sessions.map { AccountWrite(.opened($0)) }
      + stored.resets.map { AccountWrite(.requested($0)) }
      + stored.identities.map { AccountWrite(.linked($0.0, account: $0.account)) }
    var start = 0
    while start < writes.count {
      let end = min(start + chunk, writes.count)
      try await store.commit(writes[start..<end].map { $0 as any DurableWrite })
      start = end
    }
    // The next blocks start past every id moved (and every id the embedded store gave).
    try await connection.run(
      """
      SELECT setval('account_id_blocks', \(stored.nextAccount), false),
        setval('account_session_id_blocks', \(stored.nextSession), false)
      """, logger: logger)
  }

  /// What the database's account tables hold, summed up as `AccountsSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> AccountsSummary
  {
    AccountsSummary(
      try await store.snapshot { connection, _ in
        try await PostgresAccounts.read(on: connection, logger: logger)
      })
  }
}

/// Counts and an order-free checksum of the accounts (every field, the username and password
/// hash included), their sessions, resets and ID-token links.
public struct AccountsSummary: Equatable, Sendable, CustomStringConvertible {
  public let accounts: Int
  public let sessions: Int
  public let resets: Int
  public let identities: Int
  public let checksum: UInt64

  public init(_ stored: StoredAccounts) {
    accounts = stored.accounts.count
    sessions = stored.sessions.count
    resets = stored.resets.count
    identities = stored.identities.count
    var sum = TransferChecksumSum()
    for a in stored.accounts {
      sum.add {
        $0.add("account")
        $0.add(a.id)
        $0.add(a.email)
        $0.add(a.username)
        $0.add(a.storedPasswordHash ?? "-")
        $0.add(a.isPro ? 1 : 0)
        $0.add(a.role.rawValue)
        $0.add(Int64(a.createdAt.timeIntervalSince1970.rounded()))
      }
    }
    for s in stored.sessions {
      sum.add {
        $0.add("session")
        $0.add(s.id)
        $0.add(s.accountId)
        $0.add(s.tokenHash)
        $0.add(s.device ?? "-")
      }
    }
    for r in stored.resets {
      sum.add {
        $0.add("reset")
        $0.add(r.tokenHash)
        $0.add(r.accountId)
        $0.add(Int64(r.expiresAt.timeIntervalSince1970.rounded()))
      }
    }
    for (identity, account) in stored.identities {
      sum.add {
        $0.add("identity")
        $0.add(identity.provider)
        $0.add(identity.subject)
        $0.add(account)
      }
    }
    checksum = sum.value
  }

  public var description: String {
    func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
    return "\(count(accounts, "account")) (\(count(sessions, "session")), "
      + "\(count(resets, "reset")), \(count(identities, "ID-token link"))), checksum "
      + String(checksum, radix: 16)
  }
}
