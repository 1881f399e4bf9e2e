import DomainSupport
import Durability
import Foundation
import IdentityTokens
import Logging
import RateLimits
import Synchronization

/// The accounts: sign-up, sign-in, sessions on several devices, password changes and resets,
/// deletion, and the admin's Pro and role switches. Held in memory (loaded from the store at
/// start) and written through the store's group commit; every operation answers only once its
/// writes are durable. Knows nothing of RESP or HTTP: commands and pages call these functions.
public final class Accounts: Sendable {
  public struct Configuration: Sendable {
    public var hasher = PasswordHasher()
    /// How long a password-reset token is valid.
    public var resetLifetime: Double = 3_600
    /// Where the reset mails go (an `SMTPMailer`), the outbox (`init`) when it fails; nil: the
    /// outbox only.
    public var mailer: (any Mailer)?
    /// Where mail that could not be sent, and other trouble, is told.
    public var logger = Logger(label: "cardatlas.accounts")
    /// Checks Google's and Apple's ID tokens; nil: `SESSION.OPEN IDTOKEN` is not configured.
    public var identityTokens: IdentityTokenVerifier?
    /// How failed password checks slow down the next ones.
    public var throttle = SignInThrottle.Policy()
    /// Sign-ups one address may make in an hour (0: no limit).
    public var signUpsPerAddress = 20
    /// Password-reset requests one address, and one email, may make in an hour.
    public var resetsPerAddress = 10
    public var resetsPerEmail = 3
    /// Mails telling an owner that someone tried to sign up with their email: one an hour.
    public var signUpNoticesPerEmail = 1
    /// The web page a reset mail links to with its token (`<public-url>/account/reset`); nil
    /// when no web side serves it: the mail gives the token alone.
    public var resetPage: String?

    public init() {}
  }

  /// A session opened: the token is shown to the client once.
  public struct OpenedSession: Sendable {
    public let account: Account
    public let token: String
    public let sessionID: Int64
    /// The account's sign-in generation (`SignedIn.generation`).
    public let generation: Int
  }

  /// An account signed in, and its sign-in generation then: a password change, reset or
  /// deletion moves the generation on, which signs out every connection signed in before.
  public struct SignedIn: Sendable {
    public let account: Account
    public let generation: Int
  }

  struct State {
    let usernames: IdText
    /// By id (`HeldAccounts`: a million accounts in a dictionary took 2^21 buckets of 80 bytes).
    var accounts = HeldAccounts()
    /// Account ids by email (its `emailKey`) and by username (share URLs name the account by
    /// it), the texts kept once, in the accounts (`set`).
    var byEmail = IdIndex()
    var byUsername = IdIndex()
    var sessions: [String: StoredSession] = [:]
    /// Session token hashes by session id.
    var sessionHashes: [Int64: String] = [:]
    /// Sign-in generations of accounts whose password changed since the start (0 otherwise).
    var generations: [Int64: Int] = [:]
    var resets: [String: PasswordReset] = [:]
    /// Account ids by the provider and subject of the ID tokens that sign them in.
    var identities: [ProviderSubject: Int64] = [:]
    var nextAccount: Int64 = 1
    var nextSession: Int64 = 1
    /// Where ids come from when nodes share the store (`AccountStorage.accountIDs`); nil: from
    /// `nextAccount` and `nextSession`.
    let accountIDs: (any IDBlocks)?
    let sessionIDs: (any IDBlocks)?
    var observers: [any AccountObserver] = []

    /// The id the next account is given from (`IdText.firstFree` may pass over some); nil when
    /// this node has none at hand (`IDBlocks.next`).
    func accountIDFloor() -> Int64? {
      guard let accountIDs else { return nextAccount }
      return accountIDs.next()
    }

    mutating func takeSessionID() -> Int64? {
      if let sessionIDs { return sessionIDs.next() }
      defer { nextSession += 1 }
      return nextSession
    }

    /// A new account under the next free id (`IdText.firstFree`), named by it; nil when no id
    /// is at hand (`AccountError.busy`).
    mutating func register(email: String, passwordHash: String?, isPro: Bool) -> Account? {
      guard let floor = accountIDFloor() else { return nil }
      let (id, username) = usernames.firstFree(from: floor) { self.id(username: $0) != nil }
      let account = Account.new(
        id: id, email: email, username: username, passwordHash: passwordHash, isPro: isPro)
      nextAccount = id + 1
      set(account)
      return account
    }

    /// The account under its id, email and username, in place of any other holding either (a
    /// sign-up on another node that won the email); not `replacing` when loading the store's,
    /// which are unique.
    mutating func set(_ account: Account, replacing: Bool = true) {
      if replacing {
        if let old = accounts[account.id] { unindex(old) }
        for other in [id(email: account.emailKey), id(username: account.username)] {
          if let other, other != account.id, let held = accounts[other] { unindex(held) }
        }
      }
      accounts[account.id] = account
      byEmail.insert(account.id, hash: account.emailKey.hashValue, hashOf: Self.emailHash(accounts))
      byUsername.insert(
        account.id, hash: accounts.username(of: account.id)!.hashValue,
        hashOf: Self.usernameHash(accounts))
    }

    /// Changes a held account's plan, role or password (never its email or username).
    mutating func update(_ id: Int64, _ change: (inout Account) -> Void) {
      guard var account = accounts[id] else { return }
      change(&account)
      accounts[id] = account
    }

    /// Makes room for `count` accounts, before the first.
    mutating func reserve(_ count: Int) {
      byEmail.reserve(count)
      byUsername.reserve(count)
    }

    private mutating func unindex(_ account: Account) {
      byEmail.remove(account.id, hash: account.emailKey.hashValue, hashOf: Self.emailHash(accounts))
      if let username = PackedASCII.pack(account.username, bytes: 8) {
        byUsername.remove(
          account.id, hash: username.hashValue, hashOf: Self.usernameHash(accounts))
      }
    }

    /// An indexed account's hashes, read from a copy of the table: the index being changed is
    /// part of `self`.
    private static func emailHash(_ accounts: HeldAccounts) -> (Int64) -> Int {
      { accounts.emailKey(of: $0)!.hashValue }
    }

    private static func usernameHash(_ accounts: HeldAccounts) -> (Int64) -> Int {
      { accounts.username(of: $0)!.hashValue }
    }

    /// The id of the account whose email is `key` (`Account.key`).
    func id(email key: String) -> Int64? {
      byEmail.first(hash: key.hashValue) { accounts.emailKey(of: $0) == key }
    }

    func id(username: String) -> Int64? {
      guard let packed = PackedASCII.pack(username, bytes: 8) else { return nil }
      return byUsername.first(hash: packed.hashValue) { accounts.username(of: $0) == packed }
    }

    mutating func add(_ session: StoredSession) {
      sessions[session.tokenHash] = session
      sessionHashes[session.id] = session.tokenHash
    }

    /// Removes the sessions that match; returns their ids.
    mutating func removeSessions(where matches: (StoredSession) -> Bool) -> [Int64] {
      let gone = sessions.values.filter(matches)
      for session in gone {
        sessions[session.tokenHash] = nil
        sessionHashes[session.id] = nil
      }
      return gone.map(\.id)
    }

    /// Removes an account and what only it uses: its sessions, resets and ID-token links. An
    /// email or username another account holds now (a sign-up that won on another node) stays.
    mutating func remove(account id: Int64) {
      if let account = accounts[id] {
        unindex(account)
        accounts[id] = nil
      }
      _ = removeSessions { $0.accountId == id }
      resets = resets.filter { $0.value.accountId != id }
      identities = identities.filter { $0.value != id }
    }
  }

  let storage: any AccountStorage
  let configuration: Configuration
  let mailer: any Mailer
  let state: Mutex<State>
  let slow = SlowWork()
  /// Mail is handed over here, one message at a time: an SMTP server may be slow or away, and
  /// must hold up neither the event loops nor the store's commits.
  let mailQueue = DispatchQueue(label: "cardatlas.accounts.mail")
  let throttle: SignInThrottle
  let signUps: KeyedLimit
  let resetsByAddress: KeyedLimit
  let resetsByEmail: KeyedLimit
  let signUpNotices: KeyedLimit
  /// Where news goes for the other nodes (`shareNews`).
  let newsShare = Mutex<(@Sendable (AccountsNews) -> Void)?>(nil)
  /// Moves on whenever a sign-in may have ended: see `isSignedIn`.
  let revocationCount = Atomic<Int>(0)
  public typealias Done<T> = @Sendable (Result<T, AccountError>) -> Void

  /// Loads every account, session and pending reset from `storage`. Mail that cannot be sent
  /// is written to files in `outbox` (a directory).
  public init(
    storage: any AccountStorage, outbox: String, configuration: Configuration = Configuration()
  ) throws {
    self.storage = storage
    self.configuration = configuration
    throttle = SignInThrottle(policy: configuration.throttle)
    signUps = KeyedLimit(configuration.signUpsPerAddress, per: 3_600)
    resetsByAddress = KeyedLimit(configuration.resetsPerAddress, per: 3_600)
    resetsByEmail = KeyedLimit(configuration.resetsPerEmail, per: 3_600)
    signUpNotices = KeyedLimit(configuration.signUpNoticesPerEmail, per: 3_600)
    let outbox = OutboxMailer(directory: outbox)
    mailer =
      configuration.mailer.map {
        FallbackMailer(primary: $0, fallback: outbox, logger: configuration.logger)
      } ?? outbox
    let stored = try storage.load()
    state = Mutex(
      State(
        usernames: stored.usernames, accountIDs: storage.accountIDs,
        sessionIDs: storage.sessionIDs))
    state.withLock { s in
      // Ids are given in memory, after the highest ever used (deleted ones included).
      s.nextAccount = stored.nextAccount
      s.nextSession = stored.nextSession
      // Sized once: grown a row at a time, the tables were rehashed some twenty times.
      s.reserve(stored.accounts.count)
      for account in stored.accounts {
        s.set(account, replacing: false)
        s.nextAccount = max(s.nextAccount, account.id + 1)
      }
      for session in stored.sessions {
        s.add(session)
        s.nextSession = max(s.nextSession, session.id + 1)
      }
      for reset in stored.resets { s.resets[reset.tokenHash] = reset }
      for (identity, account) in stored.identities { s.identities[identity] = account }
    }
  }

  /// Modules that hold what accounts own register here before the server starts.
  public func addObserver(_ observer: any AccountObserver) {
    state.withLock { $0.observers.append(observer) }
  }

  public func account(_ id: Int64) -> Account? { state.withLock { $0.accounts[id] } }

  /// The account of an email, whatever its case.
  public func account(email: String) -> Account? {
    state.withLock { s in s.id(email: Account.key(email)).flatMap { s.accounts[$0] } }
  }

  public func account(username: String) -> Account? {
    state.withLock { s in s.id(username: username).flatMap { s.accounts[$0] } }
  }

  /// Commits writes and answers once they are durable.
  func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    storage.commit(writes) { result in
      done(result.mapError { .notPersisted("\($0)") })
    }
  }
}
