import Durability
import Foundation
import RateLimits

extension Accounts {
  /// Checks an email and password (`checkPassword`).
  public func signIn(
    email: String, password: String, address: String, _ done: @escaping Done<SignedIn>
  ) {
    checkPassword(email: email, password: password, address: address) { [self] result in
      done(result.map { SignedIn(account: $0, generation: generation(of: $0.id)) })
    }
  }

  /// Every password check (sign-in, and the old password of a change or a deletion): throttled
  /// by `SignInThrottle`, and the same work and the same answer whether the email has an
  /// account, has one without a password, or has none: a hash is checked (against a dummy when
  /// there is none), and only then is the password's length looked at.
  func checkPassword(
    email: String, password: String, address: String, _ done: @escaping Done<Account>
  ) {
    let key = Account.key(email)
    let attempt = throttle.attempt(email: key, address: address)
    let wait: Double
    switch throttle.begin(attempt) {
    case .success(let seconds): wait = seconds
    case .failure(let tooLong):
      return done(
        .failure(.limited(LimitExceeded("too many failed sign-ins", retryAfter: tooLong.seconds))))
    }
    let hasher = configuration.hasher
    let started = slow.run(key: address, after: wait) { [self] in
      let account = state.withLock { s in s.id(email: key).flatMap { s.accounts[$0] } }
      // Past the longest password, a prefix is hashed: the work stays bounded, and the same.
      let candidate = String(
        decoding: password.utf8.prefix(Validation.maximumPasswordLength + 1), as: UTF8.self)
      var matches = false
      if let hash = account?.passwordHash {
        matches = hasher.verify(candidate, against: hash)
      } else {
        hasher.verifyNothing(candidate)
      }
      guard let account, matches, password.utf8.count <= Validation.maximumPasswordLength else {
        throttle.failed(attempt)
        share(.signIn(email: key, address: address, failed: true))
        return done(.failure(.wrongCredentials))
      }
      throttle.succeeded(attempt)
      share(.signIn(email: key, address: address, failed: false))
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
    checkPassword(email: email, password: password, address: address) { [self] result in
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
    let opened = state.withLock { s -> (StoredSession, Int)? in
      guard let id = s.takeSessionID() else { return nil }
      let session = StoredSession(
        id: id, accountId: account.id, tokenHash: Tokens.digest(token),
        device: device.map { String($0.prefix(200)) }, createdAt: Date())
      s.add(session)
      return (session, s.generations[account.id, default: 0])
    }
    guard let (session, generation) = opened else { return done(.failure(.busy)) }
    commit([storage.opening(session)]) { result in
      done(
        result.map {
          OpenedSession(
            account: account, token: token, sessionID: session.id, generation: generation)
        })
    }
  }

  /// The account and session a token belongs to.
  public func resume(token: String) -> Result<
    (account: Account, sessionID: Int64, generation: Int), AccountError
  > {
    state.withLock { s in
      guard let session = s.sessions[Tokens.digest(token)],
        let account = s.accounts[session.accountId]
      else { return .failure(.invalidToken) }
      return .success((account, session.id, s.generations[account.id, default: 0]))
    }
  }

  /// A device signed in: what `SESSION.LIST` shows of a session (never its token).
  public struct SessionInfo: Sendable {
    public let id: Int64
    public let device: String?
    public let createdAt: Date
  }

  /// The account's open sessions, oldest first.
  public func sessions(of account: Int64) -> [SessionInfo] {
    state.withLock { s in
      s.sessions.values.filter { $0.accountId == account }.sorted { $0.id < $1.id }.map {
        SessionInfo(id: $0.id, device: $0.device, createdAt: $0.createdAt)
      }
    }
  }

  /// Closes one session, or every session of the account; a connection signed in with a closed
  /// session is signed out.
  public func closeSessions(
    of account: Int64, only sessionID: Int64?, _ done: @escaping Done<Int>
  ) {
    let closed = state.withLock { s in
      let closed = s.removeSessions { session in
        session.accountId == account && (sessionID == nil || session.id == sessionID)
      }
      if !closed.isEmpty { revocationCount.add(1, ordering: .sequentiallyConsistent) }
      return closed
    }
    guard !closed.isEmpty else { return done(.success(0)) }
    commit([storage.closing(closed)]) { result in done(result.map { closed.count }) }
  }

  /// Moves on whenever a sign-in may have ended (a password changed or reset, an account
  /// deleted, a session closed): while it has not, every sign-in checked before still holds.
  public var revocations: Int { revocationCount.load(ordering: .sequentiallyConsistent) }

  /// Whether a connection signed in as `account` at `generation`, with the stored session
  /// `session` if any, still is.
  public func isSignedIn(account: Int64, generation: Int, session: Int64?) -> Bool {
    state.withLock { s in
      s.accounts[account] != nil && s.generations[account, default: 0] == generation
        && (session.map { s.sessionHashes[$0] != nil } ?? true)
    }
  }

  func generation(of account: Int64) -> Int {
    state.withLock { $0.generations[account, default: 0] }
  }
}
