import Foundation

/// One write of `AccountStorage`, as another node applies it to the accounts it holds
/// (`Accounts.apply(followed:)`): a store many nodes share carries it to them.
public enum AccountChange: Sendable, Equatable, Codable {
  case inserted(Account)
  /// A decoy sign-up's write: other nodes have nothing to do.
  case usedUp(Int64)
  case deleted(Int64)
  case pro(Int64, Bool)
  case role(Int64, Account.Role)
  case password(Int64, hash: String, closing: [Int64])
  case opened(StoredSession)
  case closed([Int64])
  case requested(PasswordReset)
  case spent(PasswordReset)
  case linked(ProviderSubject, account: Int64)
}

extension Accounts {
  /// Applies a change another node made (and committed). Every sign-in it may end on this node
  /// ends: a password changed or an account deleted signs out its connections here too.
  public func apply(followed change: AccountChange) {
    var proChanged: (Account, [any AccountObserver])?
    defer {
      // What the observers hold changes here too (the map's cards turn inactive); their
      // writes are the writing node's, and reach here by the feed.
      if let (account, observers) = proChanged {
        for observer in observers { _ = observer.proChanged(account) }
      }
    }
    state.withLock { s in
      switch change {
      case .inserted(let account):
        // A sign-up here of the same email, if any, loses: its insert fails on the database's
        // unique email, and its undo (`forget`) leaves this one.
        s.set(account)
      case .usedUp: break
      case .deleted(let id):
        s.remove(account: id)
        revocationCount.add(1, ordering: .sequentiallyConsistent)
      case .pro(let id, let isPro):
        guard let before = s.accounts[id], before.isPro != isPro else { break }
        s.update(id) { $0.isPro = isPro }
        proChanged = (s.accounts[id]!, s.observers)
      case .role(let id, let role): s.update(id) { $0.role = role }
      case .password(let id, let hash, let closing):
        s.update(id) { $0.passwordHash = hash }
        s.resets = s.resets.filter { $0.value.accountId != id }
        let closing = Set(closing)
        _ = s.removeSessions { closing.contains($0.id) }
        s.generations[id, default: 0] += 1
        revocationCount.add(1, ordering: .sequentiallyConsistent)
      case .opened(let session):
        guard s.accounts[session.accountId] != nil else { break }
        s.add(session)
      case .closed(let ids):
        let ids = Set(ids)
        _ = s.removeSessions { ids.contains($0.id) }
        revocationCount.add(1, ordering: .sequentiallyConsistent)
      case .requested(let reset):
        guard s.accounts[reset.accountId] != nil else { break }
        s.resets[reset.tokenHash] = reset
      case .spent(let reset): s.resets[reset.tokenHash] = nil
      case .linked(let identity, let account):
        s.identities[identity] = account
      }
    }
  }
}
