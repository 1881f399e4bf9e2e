import Durability
import Foundation
import RateLimits

extension Accounts {
  public var isEmpty: Bool { state.withLock { $0.accounts.count == 0 } }
  public var count: Int { state.withLock { $0.accounts.count } }

  /// A new account named by its id. Answers alike whether or not the email already has an
  /// account, so that sign-up tells nobody which emails do: the password is hashed, an id is
  /// used up and a durable write made either way, and the reply has the same shape. When the
  /// email was taken, nothing else is stored, and its owner is mailed instead (at most
  /// `signUpNoticesPerEmail` an hour). One address makes at most `signUpsPerAddress` an hour.
  public func create(
    email: String, password: String, address: String, _ done: @escaping Done<Account>
  ) {
    let key = Account.key(email)
    if let problem = Validation.problem(email: email) ?? Validation.problem(password: password) {
      return done(.failure(problem))
    }
    if let wait = take(.signUps, ["address:" + address]) {
      return done(
        .failure(.limited(LimitExceeded("too many sign-ups from your address", retryAfter: wait))))
    }
    let hasher = configuration.hasher
    let started = slow.run(key: address) { [self] in
      let hash: String
      do {
        hash = try hasher.hash(password)
      } catch {
        return done(.failure(.notPersisted("cannot hash the password: \(error)")))
      }
      let made = state.withLock { s -> (Account, taken: Bool)? in
        guard s.id(email: key) == nil else {
          return s.decoy(email: email).map { ($0, true) }
        }
        return s.register(email: email, passwordHash: hash, isPro: false).map { ($0, false) }
      }
      guard let (account, taken) = made else { return done(.failure(.busy)) }
      guard !taken else {
        tellOwnerOfSignUp(email: email, address: address)
        return commit([storage.usingUp(account.id)]) { done($0.map { account }) }
      }
      storage.commit([storage.inserting(account)]) { result in
        guard case .failure(let error) = result else { return done(.success(account)) }
        self.forget(account.id)
        // Another node gave the email an account first: answered as a taken email is.
        if error is EmailTaken { return done(.success(account)) }
        done(.failure(.notPersisted("\(error)")))
      }
    }
    if !started { done(.failure(.busy)) }
  }

  /// Mails an email's owner that someone tried to sign up with it, off the caller's thread.
  private func tellOwnerOfSignUp(email: String, address: String) {
    guard let owner = account(email: email),
      take(.signUpNotices, ["email:" + owner.emailKey]) == nil
    else { return }
    let body = """
      Someone tried to make a new CardAtlas account with your address, \(owner.email).
      Your account is unchanged, and no new account was made.

      If it was you: sign in with your password, or ask for a reset if you forgot it
      (redis-cli: ACCOUNT.RESET.REQUEST \(owner.email)).
      If it was not you, you need do nothing.
      """
    mail(to: owner.email, subject: "Someone tried to sign up with your address", body: body)
  }

  /// Hands a mail to the mail queue (the accounts' and the venues' guests'); a failure is logged
  /// (the outbox keeps what SMTP refused).
  public func mail(to: String, subject: String, body: String) {
    mailQueue.async { [mailer, configuration] in
      do {
        try mailer.send(to: to, subject: subject, body: body)
      } catch {
        configuration.logger.error("mail not sent", metadata: ["error": "\(error)"])
      }
    }
  }

  public func create(passwordless email: String, isPro: Bool, _ done: @escaping Done<Account>) {
    if let problem = Validation.problem(email: email) { return done(.failure(problem)) }
    let key = Account.key(email)
    let account = state.withLock { s -> Result<Account, AccountError> in
      guard s.id(email: key) == nil else {
        return .failure(.invalid(field: "email", reason: "already registered"))
      }
      return s.register(email: email, passwordHash: nil, isPro: isPro).map { .success($0) }
        ?? .failure(.busy)
    }
    guard case .success(let account) = account else { return done(account) }
    commit([storage.inserting(account)]) { result in
      if case .failure = result { self.forget(account.id) }
      done(result.map { account })
    }
  }

  /// An invited account (an import's card owner): passwordless, as `create(passwordless:)`
  /// makes, but handed back at once so that the caller's own writes for it keep their order.
  /// Its durable write is queued now: a write queued after it commits with it or later.
  public func invite(email: String) -> Result<Account, AccountError> {
    let invited = state.withLock { s in
      Self.invite(email, registered: { s.id(email: $0) != nil }) {
        s.register(email: email, passwordHash: nil, isPro: false)
      }
    }
    guard case .success(let account) = invited else { return invited }
    commit([storage.inserting(account)]) { result in
      if case .failure = result { self.forget(account.id) }
    }
    return invited
  }

  /// The rule of an invitation, wherever the accounts are held (here, or `InvitingAccounts`): a
  /// valid email that no account has (`registered` is asked the email's key) gets one from
  /// `register`, passwordless and not Pro.
  static func invite(
    _ email: String, registered: (String) throws -> Bool, register: () throws -> Account?
  ) rethrows -> Result<Account, AccountError> {
    if let problem = Validation.problem(email: email) { return .failure(problem) }
    guard try !registered(Account.key(email)) else {
      return .failure(.invalid(field: "email", reason: "already registered"))
    }
    return try register().map { .success($0) } ?? .failure(.busy)
  }
}

extension Accounts.State {
  /// What a sign-up of a taken email answers: an account as a new one would be, under the id
  /// it would have had (used up), never stored.
  mutating func decoy(email: String) -> Account? {
    guard let floor = accountIDFloor() else { return nil }
    let (id, username) = usernames.firstFree(from: floor) { self.id(username: $0) != nil }
    nextAccount = id + 1
    return Account.new(id: id, email: email, username: username, passwordHash: nil, isPro: false)
  }
}
