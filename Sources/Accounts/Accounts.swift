import Foundation
import GRDB
import IdentityTokens
import Logging
import Store
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
    /// Where the reset mails go (an `SMTPMailer`), the store directory's `outbox` when it
    /// fails; nil: the outbox only.
    public var mailer: (any Mailer)?
    /// Where mail that could not be sent, and other trouble, is told.
    public var logger = Logger(label: "cardatlas.accounts")
    /// Checks Google's and Apple's ID tokens; nil: `SESSION.OPEN IDTOKEN` is not configured.
    public var identityTokens: IdentityTokenVerifier?

    public init() {}
  }

  /// A session opened: the token is shown to the client once.
  public struct OpenedSession: Sendable {
    public let account: Account
    public let token: String
    public let sessionID: Int64
  }

  struct State {
    let usernames: IdText
    var accounts: [Int64: Account] = [:]
    var byEmail: [String: Int64] = [:]
    /// Account ids by username: share URLs name the account by it.
    var byUsername: [String: Int64] = [:]
    /// Emails being signed up (their password is being hashed).
    var signingUp: Set<String> = []
    var sessions: [String: StoredSession] = [:]
    var resets: [String: PasswordReset] = [:]
    /// Account ids by the provider and subject of the ID tokens that sign them in.
    var identities: [ProviderSubject: Int64] = [:]
    var nextAccount: Int64 = 1
    var nextSession: Int64 = 1
    var observers: [any AccountObserver] = []

    /// A new account under the next free id (`IdText.firstFree`), named by it.
    mutating func register(email: String, passwordHash: String?, isPro: Bool) -> Account {
      let (id, username) = usernames.firstFree(from: nextAccount) { byUsername[$0] != nil }
      let account = Account.new(
        id: id, email: email, username: username, passwordHash: passwordHash, isPro: isPro)
      nextAccount = id + 1
      accounts[account.id] = account
      byEmail[account.emailKey] = account.id
      byUsername[account.username] = account.id
      return account
    }
  }

  let store: Store
  let configuration: Configuration
  private let mailer: any Mailer
  let state: Mutex<State>
  let slow = SlowWork()
  /// Mail is handed over here, one message at a time: an SMTP server may be slow or away, and
  /// must hold up neither the event loops nor the store's commits.
  private let mailQueue = DispatchQueue(label: "cardatlas.accounts.mail")
  let throttle = SignInThrottle()
  public typealias Done<T> = @Sendable (Result<T, AccountError>) -> Void

  /// Loads every account, session and pending reset from the store.
  public init(store: Store, configuration: Configuration = Configuration()) throws {
    self.store = store
    self.configuration = configuration
    let outbox = OutboxMailer(
      directory: ((store.path as NSString).deletingLastPathComponent as NSString)
        .appendingPathComponent("outbox"))
    mailer =
      configuration.mailer.map {
        FallbackMailer(primary: $0, fallback: outbox, logger: configuration.logger)
      } ?? outbox
    let (usernames, accounts, sessions, resets, identities, used) = try store.read { db in
      let usernames = try Self.usernames(db)
      return (
        usernames,
        try Row.fetchAll(db, sql: "SELECT \(Account.columns) FROM accounts").map {
          Account($0, usernames: usernames)
        },
        try StoredSession.fetchAll(db),
        try PasswordReset.fetchAll(db),
        try Row.fetchAll(db, sql: "SELECT provider, subject, account_id FROM account_identities"),
        try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence")
      )
    }
    state = Mutex(State(usernames: usernames))
    state.withLock { s in
      // Ids are given in memory, after the highest ever used (deleted ones included).
      for row in used {
        let next: Int64 = row["seq"] + 1
        switch row["name"] as String {
        case Account.databaseTableName: s.nextAccount = next
        case StoredSession.databaseTableName: s.nextSession = next
        default: break
        }
      }
      for account in accounts {
        s.accounts[account.id] = account
        s.byEmail[account.emailKey] = account.id
        s.byUsername[account.username] = account.id
        s.nextAccount = max(s.nextAccount, account.id + 1)
      }
      for session in sessions {
        s.sessions[session.tokenHash] = session
        s.nextSession = max(s.nextSession, session.id + 1)
      }
      for reset in resets { s.resets[reset.tokenHash] = reset }
      for row in identities {
        s.identities[ProviderSubject(provider: row["provider"], subject: row["subject"])] =
          row["account_id"]
      }
    }
  }

  /// Modules that hold what accounts own register here before the server starts.
  public func addObserver(_ observer: any AccountObserver) {
    state.withLock { $0.observers.append(observer) }
  }

  public func account(_ id: Int64) -> Account? { state.withLock { $0.accounts[id] } }

  /// The account of an email, whatever its case.
  public func account(email: String) -> Account? {
    state.withLock { s in s.byEmail[Account.key(email)].flatMap { s.accounts[$0] } }
  }

  public func account(username: String) -> Account? {
    state.withLock { s in s.byUsername[username].flatMap { s.accounts[$0] } }
  }

  // MARK: Sign-up and sign-in

  /// A new account with a random unique username.
  public func create(email: String, password: String, _ done: @escaping Done<Account>) {
    let key = Account.key(email)
    if let problem = Validation.problem(email: email) ?? Validation.problem(password: password) {
      return done(.failure(problem))
    }
    let free = state.withLock { s in s.byEmail[key] == nil && s.signingUp.insert(key).inserted }
    guard free else {
      return done(.failure(.invalid(field: "email", reason: "already registered")))
    }
    let hasher = configuration.hasher
    let started = slow.run { [self] in
      let hash: String
      do {
        hash = try hasher.hash(password)
      } catch {
        state.withLock { _ = $0.signingUp.remove(key) }
        return done(.failure(.notPersisted("cannot hash the password: \(error)")))
      }
      let account = state.withLock { s in
        s.signingUp.remove(key)
        return s.register(email: email, passwordHash: hash, isPro: false)
      }
      commit([TransactionWrite { db in try account.write(db) }]) { result in
        if case .failure = result { self.forget(account.id) }
        done(result.map { account })
      }
    }
    if !started {
      state.withLock { _ = $0.signingUp.remove(key) }
      done(.failure(.busy))
    }
  }

  /// A new account that signs in another way than a password (a provider's ID token), or
  /// none (demo data): it has no password hash, so no password signs it in.
  public func create(passwordless email: String, isPro: Bool, _ done: @escaping Done<Account>) {
    if let problem = Validation.problem(email: email) { return done(.failure(problem)) }
    let key = Account.key(email)
    let account = state.withLock { s -> Account? in
      guard s.byEmail[key] == nil, !s.signingUp.contains(key) else { return nil }
      return s.register(email: email, passwordHash: nil, isPro: isPro)
    }
    guard let account else {
      return done(.failure(.invalid(field: "email", reason: "already registered")))
    }
    commit([TransactionWrite { db in try account.write(db) }]) { result in
      if case .failure = result { self.forget(account.id) }
      done(result.map { account })
    }
  }

  /// An invited account (an import's card owner): passwordless, as `create(passwordless:)`
  /// makes, but handed back at once so that the caller's own writes for it keep their order.
  /// Its durable write is queued now: a write queued after it commits with it or later.
  public func invite(email: String) -> Result<Account, AccountError> {
    let invited = state.withLock { s in
      Self.invite(email, registered: { s.byEmail[$0] != nil || s.signingUp.contains($0) }) {
        s.register(email: email, passwordHash: nil, isPro: false)
      }
    }
    guard case .success(let account) = invited else { return invited }
    commit([TransactionWrite { db in try account.write(db) }]) { result in
      if case .failure = result { self.forget(account.id) }
    }
    return invited
  }

  /// The rule of an invitation, wherever the accounts are held (here, or `StoredAccounts`): a
  /// valid email that no account has (`registered` is asked the email's key) gets one from
  /// `register`, passwordless and not Pro.
  static func invite(
    _ email: String, registered: (String) throws -> Bool, register: () throws -> Account
  ) rethrows -> Result<Account, AccountError> {
    if let problem = Validation.problem(email: email) { return .failure(problem) }
    guard try !registered(Account.key(email)) else {
      return .failure(.invalid(field: "email", reason: "already registered"))
    }
    return .success(try register())
  }

  public var isEmpty: Bool { state.withLock { $0.accounts.isEmpty } }

  /// Checks an email and password. Attempts on an email or from an address that failed
  /// repeatedly wait first (`SignInThrottle`); an unknown email costs what a wrong password
  /// does, and answers the same.
  public func signIn(
    email: String, password: String, address: String, _ done: @escaping Done<Account>
  ) {
    let key = Account.key(email)
    let keys = ["email:" + key, "address:" + address]
    let hasher = configuration.hasher
    let started = slow.run(after: throttle.delay(for: keys)) { [self] in
      let account = state.withLock { s in s.byEmail[key].flatMap { s.accounts[$0] } }
      guard let account, let hash = account.passwordHash,
        password.utf8.count <= Validation.maximumPasswordLength,
        hasher.verify(password, against: hash)
      else {
        if account == nil { hasher.verifyNothing(password) }
        throttle.failed(keys)
        return done(.failure(.wrongCredentials))
      }
      throttle.succeeded(keys[0])
      done(.success(account))
    }
    if !started { done(.failure(.busy)) }
  }

  /// Signs in and opens a session on a device: its token signs in again later
  /// (`resume`), until closed.
  public func openSession(
    email: String, password: String, device: String?, address: String,
    _ done: @escaping Done<OpenedSession>
  ) {
    signIn(email: email, password: password, address: address) { [self] result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success(let account): openSession(for: account, device: device, done)
      }
    }
  }

  /// Opens a session for an account already signed in another way (an ID token).
  public func openSession(
    for account: Account, device: String?, _ done: @escaping Done<OpenedSession>
  ) {
    let token = Tokens.make()
    let session = state.withLock { s in
      let session = StoredSession(
        id: s.nextSession, accountId: account.id, tokenHash: Tokens.digest(token),
        device: device.map { String($0.prefix(200)) }, createdAt: Date())
      s.nextSession += 1
      s.sessions[session.tokenHash] = session
      return session
    }
    commit([TransactionWrite { db in try session.insert(db) }]) { result in
      done(result.map { OpenedSession(account: account, token: token, sessionID: session.id) })
    }
  }

  /// The account and session a token belongs to.
  public func resume(token: String) -> Result<(account: Account, sessionID: Int64), AccountError> {
    state.withLock { s in
      guard let session = s.sessions[Tokens.digest(token)],
        let account = s.accounts[session.accountId]
      else { return .failure(.invalidToken) }
      return .success((account, session.id))
    }
  }

  /// Closes one session, or every session of the account.
  public func closeSessions(
    of account: Int64, only sessionID: Int64?, _ done: @escaping Done<Int>
  ) {
    let closed = state.withLock { s in
      let gone = s.sessions.filter { _, session in
        session.accountId == account && (sessionID == nil || session.id == sessionID)
      }
      for hash in gone.keys { s.sessions[hash] = nil }
      return gone.values.map(\.id)
    }
    guard !closed.isEmpty else { return done(.success(0)) }
    commit([
      TransactionWrite { db in
        try StoredSession.deleteAll(db, keys: closed)
      }
    ]) { result in done(result.map { closed.count }) }
  }

  // MARK: Passwords

  public func changePassword(
    account id: Int64, old: String, new: String, _ done: @escaping Done<Void>
  ) {
    if let problem = Validation.problem(password: new) { return done(.failure(problem)) }
    let hasher = configuration.hasher
    let started = slow.run { [self] in
      guard let account = self.account(id), let hash = account.passwordHash,
        hasher.verify(old, against: hash)
      else { return done(.failure(.wrongCredentials)) }
      setPassword(account: id, to: new, done)
    }
    if !started { done(.failure(.busy)) }
  }

  /// Mails a one-time reset token valid `resetLifetime`, if the email has an account. Answers
  /// the same either way.
  public func requestReset(email: String, _ done: @escaping Done<Void>) {
    let token = Tokens.make()
    let reset: PasswordReset? = state.withLock { s in
      guard let id = s.byEmail[Account.key(email)] else { return nil }
      let reset = PasswordReset(
        tokenHash: Tokens.digest(token), accountId: id,
        expiresAt: Date().addingTimeInterval(configuration.resetLifetime))
      s.resets[reset.tokenHash] = reset
      return reset
    }
    guard let reset, let account = account(reset.accountId) else { return done(.success(())) }
    commit([TransactionWrite { db in try reset.insert(db) }]) { [self] result in
      guard case .success = result else { return done(result) }
      let minutes = Int(configuration.resetLifetime / 60)
      let body = """
        Someone asked to reset the password of the CardAtlas account \(account.email).
        If it was you, set a new password within \(minutes) minutes with this token:

            \(token)

        (redis-cli: ACCOUNT.RESET \(token) <new password>)
        If it was not you, ignore this message: nothing has changed.
        """
      mailQueue.async { [mailer] in
        do {
          try mailer.send(to: account.email, subject: "Reset your CardAtlas password", body: body)
        } catch {
          return done(.failure(.notPersisted("cannot send the reset mail: \(error)")))
        }
        done(.success(()))
      }
    }
  }

  /// Sets a new password with a reset token; the token is used up, and every session of the
  /// account is closed.
  public func reset(token: String, newPassword: String, _ done: @escaping Done<Void>) {
    if let problem = Validation.problem(password: newPassword) { return done(.failure(problem)) }
    let now = Date()
    let reset: PasswordReset? = state.withLock { s in
      guard let reset = s.resets.removeValue(forKey: Tokens.digest(token)),
        reset.expiresAt > now
      else { return nil }
      return reset
    }
    guard let reset else { return done(.failure(.invalidToken)) }
    setPassword(account: reset.accountId, to: newPassword, closingSessions: true) { result in
      done(result)
    }
  }

  private func setPassword(
    account id: Int64, to password: String, closingSessions: Bool = false,
    _ done: @escaping Done<Void>
  ) {
    let hasher = configuration.hasher
    let started = slow.run { [self] in
      guard let hash = try? hasher.hash(password) else {
        return done(.failure(.notPersisted("cannot hash the password")))
      }
      let closed = state.withLock { s -> [Int64]? in
        guard s.accounts[id] != nil else { return nil }
        s.accounts[id]?.passwordHash = hash
        // A reset token is for one password change.
        s.resets = s.resets.filter { $0.value.accountId != id }
        guard closingSessions else { return [] }
        let gone = s.sessions.filter { $0.value.accountId == id }
        for key in gone.keys { s.sessions[key] = nil }
        return gone.values.map(\.id)
      }
      guard let closed else { return done(.failure(.notFound)) }
      commit(
        [
          TransactionWrite { db in
            try db.execute(
              sql: "UPDATE accounts SET password_hash = ? WHERE id = ?", arguments: [hash, id])
            try db.execute(sql: "DELETE FROM password_resets WHERE account_id = ?", arguments: [id])
            try StoredSession.deleteAll(db, keys: closed)
          }
        ], done)
    }
    if !started { done(.failure(.busy)) }
  }

  // MARK: Deletion and the admin's switches

  /// Deletes the account and, through the observers, everything it owns, in one transaction.
  public func delete(account id: Int64, password: String, _ done: @escaping Done<Void>) {
    let hasher = configuration.hasher
    let started = slow.run { [self] in
      guard let account = self.account(id), let hash = account.passwordHash,
        hasher.verify(password, against: hash)
      else { return done(.failure(.wrongCredentials)) }
      delete(confirmed: id, done)
    }
    if !started { done(.failure(.busy)) }
  }

  /// Deletes an account whose owner has proved who they are (a password, or a fresh ID token).
  func delete(confirmed id: Int64, _ done: @escaping Done<Void>) {
    let observers = forget(id)
    let owned = observers.flatMap { $0.accountDeleted(id) }
    commit(
      owned + [
        TransactionWrite { db in
          try db.execute(
            sql: "DELETE FROM account_sessions WHERE account_id = ?", arguments: [id])
          try db.execute(sql: "DELETE FROM password_resets WHERE account_id = ?", arguments: [id])
          try db.execute(
            sql: "DELETE FROM account_identities WHERE account_id = ?", arguments: [id])
          try db.execute(sql: "DELETE FROM accounts WHERE id = ?", arguments: [id])
        }
      ], done)
  }

  /// Removes an account from memory; returns the observers to tell.
  @discardableResult
  func forget(_ id: Int64) -> [any AccountObserver] {
    state.withLock { s in
      if let account = s.accounts.removeValue(forKey: id) {
        s.byEmail[account.emailKey] = nil
        s.byUsername[account.username] = nil
      }
      s.sessions = s.sessions.filter { $0.value.accountId != id }
      s.resets = s.resets.filter { $0.value.accountId != id }
      s.identities = s.identities.filter { $0.value != id }
      return s.observers
    }
  }

  /// The billing hook: Pro on or off. Observers (cards) change what the account's records may
  /// show in the same transaction.
  public func setPro(account id: Int64, _ isPro: Bool, _ done: @escaping Done<Account>) {
    let changed = state.withLock { s -> (Account, [any AccountObserver])? in
      guard let before = s.accounts[id] else { return nil }
      s.accounts[id]!.isPro = isPro
      // The same plan again changes nothing the observers hold: they are not told.
      return (s.accounts[id]!, before.isPro == isPro ? [] : s.observers)
    }
    guard let (account, observers) = changed else { return done(.failure(.notFound)) }
    let writes = observers.flatMap { $0.proChanged(account) }
    commit(
      writes + [
        TransactionWrite { db in
          try db.execute(
            sql: "UPDATE accounts SET is_pro = ? WHERE id = ?", arguments: [isPro, id])
        }
      ]
    ) { done($0.map { account }) }
  }

  public func setRole(account id: Int64, _ role: Account.Role, _ done: @escaping Done<Account>) {
    let account = state.withLock { s -> Account? in
      s.accounts[id]?.role = role
      return s.accounts[id]
    }
    guard let account else { return done(.failure(.notFound)) }
    commit([
      TransactionWrite { db in
        try db.execute(
          sql: "UPDATE accounts SET role = ? WHERE id = ?", arguments: [role.rawValue, id])
      }
    ]) { done($0.map { account }) }
  }

  /// Commits writes and answers once they are durable.
  func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    store.commit([], writes: writes) { result in
      done(result.mapError { .notPersisted("\($0)") })
    }
  }
}
