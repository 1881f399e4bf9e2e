import Durability
import Foundation

extension Accounts {
  /// Deletes the account and, through the observers, everything it owns, in one transaction,
  /// on the word of its password (checked as a sign-in is). Every connection signed in to it
  /// is signed out.
  public func delete(
    account id: Int64, password: String, address: String, _ done: @escaping Done<Void>
  ) {
    guard let account = account(id) else { return done(.failure(.notFound)) }
    checkPassword(email: account.email, password: password, address: address) {
      [self] result in
      switch result {
      case .failure(let error): done(.failure(error))
      case .success: delete(confirmed: id, done)
      }
    }
  }

  /// Deletes an account whose owner has proved who they are (a password, or a fresh ID token).
  func delete(confirmed id: Int64, _ done: @escaping Done<Void>) {
    let observers = forget(id)
    let owned = observers.flatMap { $0.accountDeleted(id) }
    commit(
      owned + [storage.deleting(id)], done)
  }

  /// Removes an account from memory, which signs out every connection signed in to it; returns
  /// the observers to tell.
  @discardableResult
  func forget(_ id: Int64) -> [any AccountObserver] {
    state.withLock { s in
      s.remove(account: id)
      revocationCount.add(1, ordering: .sequentiallyConsistent)
      return s.observers
    }
  }

  /// The billing hook: Pro on or off. Observers (cards) change what the account's records may
  /// show in the same transaction.
  public func setPro(account id: Int64, _ isPro: Bool, _ done: @escaping Done<Account>) {
    let changed = state.withLock { s -> (Account, [any AccountObserver])? in
      guard let before = s.accounts[id] else { return nil }
      s.update(id) { $0.isPro = isPro }
      // The same plan again changes nothing the observers hold: they are not told.
      return (s.accounts[id]!, before.isPro == isPro ? [] : s.observers)
    }
    guard let (account, observers) = changed else { return done(.failure(.notFound)) }
    let writes = observers.flatMap { $0.proChanged(account) }
    commit(
      writes + [storage.settingPro(isPro, of: id)]
    ) { done($0.map { account }) }
  }

  public func setRole(account id: Int64, _ role: Account.Role, _ done: @escaping Done<Account>) {
    let account = state.withLock { s -> Account? in
      s.update(id) { $0.role = role }
      return s.accounts[id]
    }
    guard let account else { return done(.failure(.notFound)) }
    commit([storage.settingRole(role, of: id)]) { done($0.map { account }) }
  }
}
