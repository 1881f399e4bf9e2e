import Durability
import Foundation
import RateLimits

extension Accounts {
  /// Changes the password on the word of the old one (checked as a sign-in is). Every other
  /// sign-in ends: each session but `keeping` (the one the change was made on) is closed, and
  /// every connection signed in before is signed out. Answers the generation the connection
  /// that made the change goes on with.
  public func changePassword(
    account id: Int64, old: String, new: String, address: String, keeping: Int64?,
    _ done: @escaping Done<Int>
  ) {
    if let problem = Validation.problem(password: new) { return done(.failure(problem)) }
    guard let account = account(id) else { return done(.failure(.notFound)) }
    checkPassword(email: account.email, password: old, address: address) { [self] result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success: setPassword(account: id, to: new, keeping: keeping, done)
      }
    }
  }

  /// Mails a one-time reset token valid `resetLifetime`, if the email has an account. Answers
  /// at once and alike either way: whether there is an account is looked at only after, off
  /// the caller's thread. One address asks at most `resetsPerAddress` an hour, and for one
  /// email at most `resetsPerEmail` are asked (emails with no account included).
  public func requestReset(email: String, address: String, _ done: @escaping Done<Void>) {
    let key = Account.key(email)
    if let wait = take(.resetsByAddress, ["address:" + address]) {
      return done(
        .failure(
          .limited(LimitExceeded("too many reset requests from your address", retryAfter: wait))))
    }
    if let wait = take(.resetsByEmail, ["email:" + key]) {
      return done(
        .failure(
          .limited(LimitExceeded("too many reset requests for this email", retryAfter: wait))))
    }
    done(.success(()))
    // Later, so that a known email's work (a durable write, a mail) does not compete with the
    // reply on its way: its time would tell which emails have accounts.
    mailQueue.asyncAfter(deadline: .now() + 0.05) { [self] in mailReset(emailKey: key) }
  }

  private func mailReset(emailKey: String) {
    let token = Tokens.make()
    let reset: (PasswordReset, Account)? = state.withLock { s in
      guard let id = s.id(email: emailKey), let account = s.accounts[id] else { return nil }
      let reset = PasswordReset(
        tokenHash: Tokens.digest(token), accountId: id,
        expiresAt: Date().addingTimeInterval(configuration.resetLifetime))
      s.resets[reset.tokenHash] = reset
      return (reset, account)
    }
    guard let (reset, account) = reset else { return }
    commit([storage.requesting(reset)]) { [self] result in
      if case .failure(let error) = result {
        return configuration.logger.error(
          "reset not stored, no mail sent", metadata: ["error": "\(error)"])
      }
      let minutes = Int(configuration.resetLifetime / 60)
      let how = configuration.resetPage.map {
        "open this link:\n\n    \($0)?token=\(token)\n\nor use this token"
      }
      let body = """
        Someone asked to reset the password of the CardAtlas account \(account.email).
        If it was you, set a new password within \(minutes) minutes: \(how ?? "use this token"):

            \(token)

        (redis-cli: ACCOUNT.RESET \(token) <new password>)
        If it was not you, ignore this message: nothing has changed.
        """
      mail(to: account.email, subject: "Reset your CardAtlas password", body: body)
    }
  }

  /// Sets a new password with a reset token; the token is used up, every session of the
  /// account is closed and every connection signed in to it is signed out. The token is spent
  /// in a commit of its own first, which the database refuses if another node spent it (two
  /// nodes both hold it until the first use's feed row arrives); a token that could not be
  /// spent for want of the store goes back, for the client's retry.
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
    storage.commit([storage.spending(reset)]) { [self] result in
      if case .failure(let error) = result {
        if error is ResetSpent { return done(.failure(.invalidToken)) }
        state.withLock { s in
          if s.accounts[reset.accountId] != nil { s.resets[reset.tokenHash] = reset }
        }
        return done(.failure(.notPersisted("\(error)")))
      }
      setPassword(account: reset.accountId, to: newPassword, keeping: nil) { done($0.map { _ in }) }
    }
  }

  /// Hashes and sets a password, and ends every sign-in but the session `keeping`: answers
  /// the account's new generation.
  private func setPassword(
    account id: Int64, to password: String, keeping: Int64?, _ done: @escaping Done<Int>
  ) {
    let hasher = configuration.hasher
    let started = slow.run(key: "account:\(id)") { [self] in
      guard let hash = try? hasher.hash(password) else {
        return done(.failure(.notPersisted("cannot hash the password")))
      }
      let changed = state.withLock { s -> (closed: [Int64], generation: Int)? in
        guard s.accounts[id] != nil else { return nil }
        s.update(id) { $0.passwordHash = hash }
        // A reset token is for one password change.
        s.resets = s.resets.filter { $0.value.accountId != id }
        let closed = s.removeSessions { $0.accountId == id && $0.id != keeping }
        s.generations[id, default: 0] += 1
        revocationCount.add(1, ordering: .sequentiallyConsistent)
        return (closed, s.generations[id]!)
      }
      guard let changed else { return done(.failure(.notFound)) }
      commit([storage.settingPassword(hash, of: id, closing: changed.closed)]) {
        done($0.map { changed.generation })
      }
    }
    if !started { done(.failure(.busy)) }
  }
}
