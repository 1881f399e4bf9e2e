import Durability
import Foundation

/// What the accounts need from a store: everything read back at start (`StoredAccounts`), and
/// the writes that keep it, made durable in the group commit with the rest of their command
/// (`commit`). The embedded store's is `SQLiteDomainStorage.SQLiteAccounts`.
public protocol AccountStorage: WriteCommitter {
  func load() throws -> StoredAccounts
  func inserting(_ account: Account) -> any DurableWrite
  /// A decoy sign-up's write: the id is used up, as an insert would use it, and nothing kept.
  func usingUp(_ id: Int64) -> any DurableWrite
  /// The account with its sessions, resets and ID-token links.
  func deleting(_ id: Int64) -> any DurableWrite
  func settingPro(_ isPro: Bool, of id: Int64) -> any DurableWrite
  func settingRole(_ role: Account.Role, of id: Int64) -> any DurableWrite
  /// A new password hash: the account's resets go with the old one, and the sessions `closing`.
  func settingPassword(_ hash: String, of id: Int64, closing sessions: [Int64])
    -> any DurableWrite
  func opening(_ session: StoredSession) -> any DurableWrite
  func closing(_ sessions: [Int64]) -> any DurableWrite
  func requesting(_ reset: PasswordReset) -> any DurableWrite
  /// A reset token used up: its row goes. A store many nodes share refuses it (`ResetSpent`)
  /// when the row is gone or expired: another node's use of the same token came first.
  func spending(_ reset: PasswordReset) -> any DurableWrite
  func linking(_ identity: ProviderSubject, to account: Int64) -> any DurableWrite
  /// Where new accounts' and sessions' ids come from when nodes share the store; nil (the
  /// default): after the highest stored (`StoredAccounts.nextAccount`, `.nextSession`).
  var accountIDs: (any IDBlocks)? { get }
  var sessionIDs: (any IDBlocks)? { get }
}

extension AccountStorage {
  public var accountIDs: (any IDBlocks)? { nil }
  public var sessionIDs: (any IDBlocks)? { nil }
}

/// What a store's commit fails with when another writer (a node sharing the store) gave the
/// email an account first: the database's unique email refused this one.
public struct EmailTaken: Error, CustomStringConvertible {
  public init() {}
  public var description: String { "the email already has an account" }
}

/// What a store's commit of `spending` fails with when the token was used up already (on
/// another node, within the feed's lag) or expired: the token is refused.
public struct ResetSpent: Error, CustomStringConvertible {
  public init() {}
  public var description: String { "the reset token was used already" }
}

/// Everything the accounts' store holds, as the writes left it.
public struct StoredAccounts: Sendable {
  /// The usernames of accounts made since accounts-v3 (`Accounts.usernames(key:)`).
  public var usernames: IdText
  public var accounts: [Account]
  public var sessions: [StoredSession]
  public var resets: [PasswordReset]
  public var identities: [(ProviderSubject, account: Int64)]
  /// The ids after the highest ever given (a deleted row's id is never given again).
  public var nextAccount: Int64
  public var nextSession: Int64

  public init(
    usernames: IdText, accounts: [Account], sessions: [StoredSession], resets: [PasswordReset],
    identities: [(ProviderSubject, account: Int64)], nextAccount: Int64, nextSession: Int64
  ) {
    self.usernames = usernames
    self.accounts = accounts
    self.sessions = sessions
    self.resets = resets
    self.identities = identities
    self.nextAccount = nextAccount
    self.nextSession = nextSession
  }
}
