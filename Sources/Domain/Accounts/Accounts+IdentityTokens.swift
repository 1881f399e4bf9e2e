import Durability
import Foundation
import IdentityTokens

/// What an ID token's sign-in is keyed by: the provider's id for the person, never the email
/// (which the person may change at the provider).
public struct ProviderSubject: Hashable, Sendable, Codable {
  public let provider: String
  public let subject: String

  public init(provider: String, subject: String) {
    self.provider = provider
    self.subject = subject
  }
}

extension Accounts {
  /// Signs in with a provider's ID token (Sign in with Google or Apple) and opens a session on
  /// a device, as `openSession(email:password:...)` does. Every refusal of the token answers
  /// the same `idTokenRefused`; the verifier logs why.
  public func openSession(
    provider: String, idToken: String, device: String?, _ done: @escaping Done<OpenedSession>
  ) {
    verified(provider, idToken, done) { [self] identity in
      signIn(identity) { [self] result in
        switch result {
        case .failure(let error): done(.failure(error))
        case .success(let account): openSession(for: account, device: device, done)
        }
      }
    }
  }

  /// Deletes an account on the word of a fresh ID token of a provider linked to it: how an
  /// account that has no password (it signs in with Google or Apple) confirms its deletion.
  /// A token of anyone else is refused as any bad token is.
  public func delete(
    account id: Int64, provider: String, idToken: String, _ done: @escaping Done<Void>
  ) {
    verified(provider, idToken, done) { [self] identity in
      let key = ProviderSubject(provider: identity.provider, subject: identity.subject)
      guard state.withLock({ $0.identities[key] }) == id else {
        return done(.failure(.idTokenRefused))
      }
      delete(confirmed: id, done)
    }
  }

  /// Checks the token, off the event loop (the keys may need fetching, and checking a signature
  /// takes a while), and goes on with the identity it proves; a refusal answers `done`.
  private func verified<T>(
    _ provider: String, _ idToken: String, _ done: @escaping Done<T>,
    then proceed: @escaping @Sendable (VerifiedIdentity) -> Void
  ) {
    guard let verifier = configuration.identityTokens, verifier.isConfigured(provider) else {
      return done(.failure(.notConfigured(provider: provider)))
    }
    verifier.verify(provider: provider, token: idToken) { verified in
      switch verified {
      case .failure(.keysUnavailable): done(.failure(.idTokenKeysUnavailable))
      case .failure(.busy): done(.failure(.busy))
      case .failure: done(.failure(.idTokenRefused))
      case .success(let identity): proceed(identity)
      }
    }
  }

  /// The account an identity signs in: the one linked to its subject; else the one with its
  /// (provider-verified) email, which gets linked; else a new passwordless account, linked.
  func signIn(_ identity: VerifiedIdentity, _ done: @escaping Done<Account>) {
    if let problem = Validation.problem(email: identity.email) { return done(.failure(problem)) }
    let key = ProviderSubject(provider: identity.provider, subject: identity.subject)
    let email = Account.key(identity.email)
    enum Outcome {
      case known(Account)
      case linked(Account)
      case created(Account)
      case noID
    }
    let outcome = state.withLock { s -> Outcome in
      if let id = s.identities[key], let account = s.accounts[id] { return .known(account) }
      if let id = s.id(email: email), let account = s.accounts[id] {
        s.identities[key] = id
        return .linked(account)
      }
      guard let account = s.register(email: identity.email, passwordHash: nil, isPro: false)
      else { return .noID }
      s.identities[key] = account.id
      return .created(account)
    }
    let link = { [storage] (id: Int64) in storage.linking(key, to: id) }
    switch outcome {
    case .known(let account): done(.success(account))
    case .noID: done(.failure(.busy))
    case .linked(let account):
      commit([link(account.id)]) { [self] result in
        if case .failure = result { state.withLock { _ = $0.identities.removeValue(forKey: key) } }
        done(result.map { account })
      }
    case .created(let account):
      commit([storage.inserting(account), link(account.id)]) {
        [self] result in
        if case .failure = result { forget(account.id) }
        done(result.map { account })
      }
    }
  }
}
