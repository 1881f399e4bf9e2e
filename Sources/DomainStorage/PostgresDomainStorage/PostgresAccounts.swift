import Accounts
import Durability
import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// The accounts in PostgreSQL, in tables named as the embedded store's: `accounts` (the email's
/// key unique, so that two nodes can never both give one email an account), `account_sessions`,
/// `password_resets`, `account_identities`, and the usernames' key in `id_keys`. Ids come in
/// blocks from sequences (`PostgresIDBlocks`). Each write's `AccountChange` rides in the change
/// feed, and every other node applies it to the accounts it holds (`follow`).
public final class PostgresAccounts: AccountStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "accounts-v1",
      [
        """
        CREATE TABLE accounts (
          id bigint PRIMARY KEY,
          email text NOT NULL,
          -- The email lower-cased: unique, so that case never makes a second account.
          email_key text NOT NULL UNIQUE,
          -- Every account's, as given (IdText's, or drawn at random by an older embedded
          -- store); NULL is read as the id's.
          username text UNIQUE,
          -- scrypt, self-describing; NULL for an account that signs in with an ID token only.
          password_hash text,
          is_pro boolean NOT NULL DEFAULT false,
          role text NOT NULL DEFAULT 'none',
          created_at timestamptz NOT NULL)
        """,
        """
        CREATE TABLE account_sessions (
          id bigint PRIMARY KEY,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          token_hash text NOT NULL UNIQUE,
          device text,
          created_at timestamptz NOT NULL)
        """,
        "CREATE INDEX account_sessions_account ON account_sessions (account_id)",
        """
        CREATE TABLE password_resets (
          token_hash text PRIMARY KEY,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          expires_at timestamptz NOT NULL)
        """,
        """
        CREATE TABLE account_identities (
          provider text NOT NULL, subject text NOT NULL,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          PRIMARY KEY (provider, subject))
        """,
        "CREATE TABLE id_keys (purpose text PRIMARY KEY, key bytea NOT NULL)",
        // Blocks of ids (PostgresIDBlocks): each value is the first id of a block.
        "CREATE SEQUENCE account_id_blocks INCREMENT BY \(blockSize)",
        "CREATE SEQUENCE account_session_id_blocks INCREMENT BY \(blockSize)",
      ])
  ]

  /// Ids a node takes at once.
  static let blockSize: Int64 = 1_000
  /// The feed section's source for account changes.
  public static let source: UInt8 = 2

  let store: PostgresStore
  public let accountIDs: (any IDBlocks)?
  public let sessionIDs: (any IDBlocks)?
  private let stored: StoredAccounts
  private let position: FeedPosition
  private let logger: Logger

  /// Reads every account, session, reset and link in one snapshot (and the usernames' key,
  /// made by the first node to ask), and takes this node's first blocks of ids.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    try await PostgresIdKeys.ensure("usernames", in: store, logger: logger)
    (stored, position) = try await store.snapshot { connection, position in
      (try await Self.read(on: connection, logger: logger), position)
    }
    accountIDs = try await PostgresIDBlocks(
      sequence: "account_id_blocks", blockSize: Self.blockSize, connector: store.connector,
      logger: logger)
    sessionIDs = try await PostgresIDBlocks(
      sequence: "account_session_id_blocks", blockSize: Self.blockSize,
      connector: store.connector, logger: logger)
  }

  public func load() throws -> StoredAccounts { stored }

  /// Applies every other node's account changes to `accounts` (loaded from this storage), from
  /// where the load read. This node's own are in memory already.
  public func consumer(into accounts: Accounts) -> FeedConsumer {
    FeedConsumer(position: position) { [store, logger] entry in
      guard entry.node != store.node else { return }
      for section in entry.sections where section.source == Self.source {
        guard let change = try? JSONDecoder().decode(AccountChange.self, from: Data(section.bytes))
        else {
          logger.error(
            "change feed: account section unreadable", metadata: ["id": "\(entry.position)"])
          continue
        }
        accounts.apply(followed: change)
      }
    }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(writes) { completion($0.mapError(Self.refusal)) }
  }

  /// A write's own failure in the domain's terms: an email another node took first is
  /// `EmailTaken`; another refusal says the server's message (postgres-nio's description of
  /// its errors is generic, for fear of leaking data, and the reply would say nothing).
  static func refusal(_ error: any Error) -> any Error {
    guard let info = (error as? PSQLError)?.serverInfo else { return error }
    if info[.sqlState] == "23505", info[.constraintName] == "accounts_email_key_key" {
      return EmailTaken()
    }
    return PostgresRefusal(description: info[.message] ?? String(reflecting: error))
  }

  public func inserting(_ account: Account) -> any DurableWrite { AccountWrite(.inserted(account)) }
  public func usingUp(_ id: Int64) -> any DurableWrite { AccountWrite(.usedUp(id)) }
  public func deleting(_ id: Int64) -> any DurableWrite { AccountWrite(.deleted(id)) }
  public func settingPro(_ isPro: Bool, of id: Int64) -> any DurableWrite {
    AccountWrite(.pro(id, isPro))
  }
  public func settingRole(_ role: Account.Role, of id: Int64) -> any DurableWrite {
    AccountWrite(.role(id, role))
  }
  public func settingPassword(_ hash: String, of id: Int64, closing sessions: [Int64])
    -> any DurableWrite
  {
    AccountWrite(.password(id, hash: hash, closing: sessions))
  }
  public func opening(_ session: StoredSession) -> any DurableWrite {
    AccountWrite(.opened(session))
  }
  public func closing(_ sessions: [Int64]) -> any DurableWrite { AccountWrite(.closed(sessions)) }
  public func requesting(_ reset: PasswordReset) -> any DurableWrite {
    AccountWrite(.requested(reset))
  }
  public func spending(_ reset: PasswordReset) -> any DurableWrite { AccountWrite(.spent(reset)) }
  public func linking(_ identity: ProviderSubject, to account: Int64) -> any DurableWrite {
    AccountWrite(.linked(identity, account: account))
  }

  static func read(on connection: PostgresConnection, logger: Logger) async throws
    -> StoredAccounts
  {
    guard
      let key = try await connection.query(
        "SELECT key FROM id_keys WHERE purpose = 'usernames'", logger: logger
      ).collect().first?.decode(ByteBuffer.self)
    else { throw PostgresAccountsError(description: "id_keys has no key for usernames") }
    let usernames = Accounts.usernames(key: Data(buffer: key))
    var accounts: [Account] = []
    for try await (id, email, username, hash, isPro, role, created) in try await connection.query(
      "SELECT id, email, username, password_hash, is_pro, role, created_at FROM accounts",
      logger: logger
    ).decode((Int64, String, String?, String?, Bool, String, Date).self) {
      accounts.append(
        Account(
          id: id, email: email, username: username ?? usernames.text(id), passwordHash: hash,
          isPro: isPro, role: Account.Role(rawValue: role) ?? .none, createdAt: created))
    }
    var sessions: [StoredSession] = []
    for try await (id, account, hash, device, created) in try await connection.query(
      "SELECT id, account_id, token_hash, device, created_at FROM account_sessions",
      logger: logger
    ).decode((Int64, Int64, String, String?, Date).self) {
      sessions.append(
        StoredSession(
          id: id, accountId: account, tokenHash: hash, device: device, createdAt: created)
      )
    }
    var resets: [PasswordReset] = []
    for try await (hash, account, expires) in try await connection.query(
      "SELECT token_hash, account_id, expires_at FROM password_resets", logger: logger
    ).decode((String, Int64, Date).self) {
      resets.append(PasswordReset(tokenHash: hash, accountId: account, expiresAt: expires))
    }
    var identities: [(ProviderSubject, account: Int64)] = []
    for try await (provider, subject, account) in try await connection.query(
      "SELECT provider, subject, account_id FROM account_identities", logger: logger
    ).decode((String, String, Int64).self) {
      identities.append((ProviderSubject(provider: provider, subject: subject), account: account))
    }
    // Ids come from blocks (`accountIDs`): these only count on past what is loaded.
    return StoredAccounts(
      usernames: usernames, accounts: accounts, sessions: sessions, resets: resets,
      identities: identities, nextAccount: (accounts.map(\.id).max() ?? 0) + 1,
      nextSession: (sessions.map(\.id).max() ?? 0) + 1)
  }
}

struct PostgresAccountsError: Error, CustomStringConvertible {
  let description: String
}

/// The database refused a write: its message.
struct PostgresRefusal: Error, CustomStringConvertible {
  let description: String
}
