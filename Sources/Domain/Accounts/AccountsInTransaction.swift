/// The accounts as a writer without `Accounts` in memory reads and writes them, inside one of
/// the store's transactions (a bulk import into a data directory the daemon is not running
/// on), so that memory stays flat however many accounts it invites. A store gives the reads
/// and the insert; the rules are `Accounts`' own (`InvitingAccounts`).
public protocol AccountsInTransaction {
  /// The usernames of accounts made since accounts-v3.
  var usernames: IdText { get }
  /// The id after the highest ever given, when the transaction began.
  var nextAccount: Int64 { get }
  /// The account whose email key (`Account.emailKey`) is this.
  func account(emailKey: String) throws -> Account?
  func hasAccount(emailKey: String) throws -> Bool
  func hasAccount(username: String) throws -> Bool
  func insert(_ account: Account) throws
}

/// `Accounts.invite` over `AccountsInTransaction`: ids continue the store's sequence, as the
/// daemon continues it when it loads them.
public struct InvitingAccounts {
  private let store: any AccountsInTransaction
  private var nextAccount: Int64
  /// The email key `account(email:)` last found no account for: `invite` then need not ask
  /// again.
  private var absent: String?

  public init(_ store: any AccountsInTransaction) {
    self.store = store
    nextAccount = store.nextAccount
  }

  /// The account of an email, whatever its case.
  public mutating func account(email: String) throws -> Account? {
    let key = Account.key(email)
    let found = try store.account(emailKey: key)
    absent = found == nil ? key : nil
    return found
  }

  /// `Accounts.invite`, written into the open transaction.
  public mutating func invite(email: String) throws -> Result<Account, AccountError> {
    let invited = try Accounts.invite(
      email, registered: { try $0 != absent && store.hasAccount(emailKey: $0) },
      register: {
        let (id, username) = try store.usernames.firstFree(from: nextAccount) {
          try store.hasAccount(username: $0)
        }
        return Account.new(
          id: id, email: email, username: username, passwordHash: nil, isPro: false)
      })
    if case .success(let account) = invited {
      try store.insert(account)
      nextAccount = account.id + 1
    }
    return invited
  }
}
