import Foundation
import GRDB
import Store

/// The accounts as the store holds them, read and invited inside one of the writer's
/// transactions: for a writer that runs without `Accounts` in memory (a bulk import into a
/// data directory the daemon is not running on), so that memory stays flat however many
/// accounts it invites. The rules are `Accounts`' own (`Accounts.invite`, `Account.new`,
/// `IdText.firstFree`); only where they read and write differs. Ids continue the table's
/// sequence, as the daemon continues it when it loads them.
public struct StoredAccounts {
  private let db: Database
  private var nextAccount: Int64
  private let usernames: IdText
  /// The email key `account(email:)` last found no account for: `invite` then need not ask
  /// again.
  private var absent: String?

  public init(_ db: Database) throws {
    self.db = db
    nextAccount = try RowIds.next(after: "accounts", db)
    usernames = try Accounts.usernames(db)
  }

  /// The account of an email, whatever its case.
  public mutating func account(email: String) throws -> Account? {
    let key = Account.key(email)
    let found = try Row.fetchOne(
      db.cachedStatement(sql: "SELECT \(Account.columns) FROM accounts WHERE email_key = ?"),
      arguments: [key]
    ).map { Account($0, usernames: usernames) }
    absent = found == nil ? key : nil
    return found
  }

  /// `Accounts.invite`, written into the open transaction.
  public mutating func invite(email: String) throws -> Result<Account, AccountError> {
    let invited = try Accounts.invite(
      email, registered: { try $0 != absent && exists("email_key", $0) },
      register: {
        let (id, username) = try usernames.firstFree(from: nextAccount) {
          try exists("username", $0)
        }
        return Account.new(
          id: id, email: email, username: username, passwordHash: nil, isPro: false)
      })
    if case .success(let account) = invited {
      try account.write(db)
      nextAccount = account.id + 1
    }
    return invited
  }

  private func exists(_ column: String, _ value: String) throws -> Bool {
    try Bool.fetchOne(
      db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM accounts WHERE \(column) = ?)"),
      arguments: [value]) ?? false
  }
}
