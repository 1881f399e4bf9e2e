import Durability
import Foundation

extension Venues {
  // MARK: Favorites

  /// Adds a venue to the account's favorites; whether it was not there yet.
  public func addFavorite(account: Int64, venue id: Int64, _ done: @escaping Done<Bool>) {
    guard accounts.account(account) != nil else {
      return done(.failure(.notFound("no such account")))
    }
    let now = now
    let added = state.withLock { s -> Result<Bool, VenueError> in
      guard s.venues[id] != nil else { return .failure(.notFound("no such venue")) }
      guard s.favorites[account]?[id] == nil else { return .success(false) }
      s.favorites[account, default: [:]][id] = now
      return .success(true)
    }
    guard case .success(true) = added else { return done(added) }
    commit([syncFavorite(account, id)], answer: true, done)
  }

  /// Removes a venue from the account's favorites; whether it was there.
  public func removeFavorite(account: Int64, venue id: Int64, _ done: @escaping Done<Bool>) {
    let removed = state.withLock { $0.favorites[account]?.removeValue(forKey: id) != nil }
    guard removed else { return done(.success(false)) }
    commit([syncFavorite(account, id)], answer: true, done)
  }

  /// The account's favorite venues, the latest added first.
  public func favorites(account: Int64) -> [Venue] {
    state.withLock { s in
      (s.favorites[account] ?? [:]).sorted { ($0.value, $0.key) > ($1.value, $1.key) }
        .compactMap { s.venues[$0.key] }
    }
  }

  private func syncFavorite(_ account: Int64, _ venue: Int64) -> any DurableWrite {
    storage.syncingFavorite(account: account, venue: venue) { [self] in
      state.withLock { $0.favorites[account]?[venue] }
    }
  }

  // MARK: Dependants

  /// A family member without a login that the account checks in with itself.
  public func addDependant(account: Int64, name text: String, _ done: @escaping Done<Dependant>) {
    let name: String
    switch Self.validName(text, field: "name") {
    case .success(let valid): name = valid
    case .failure(let error): return done(.failure(error))
    }
    guard accounts.account(account) != nil else {
      return done(.failure(.notFound("no such account")))
    }
    let created = Date(timeIntervalSince1970: now.rounded(.down))
    let made = state.withLock { s -> Result<Dependant, VenueError> in
      let current = (s.dependantsOf[account] ?? []).filter { s.dependants[$0]?.removed == false }
      guard current.count < Self.maxDependants else {
        return .failure(.limit("an account has at most \(Self.maxDependants) dependants"))
      }
      guard let id = Self.newId(storage.ids?.dependants, &s.nextDependant) else {
        return .failure(Self.waitingForIds)
      }
      let dependant = Dependant(
        id: id, accountId: account, name: name, removed: false, createdAt: created)
      s.dependants[dependant.id] = dependant
      s.dependantsOf[account, default: []].append(dependant.id)
      return .success(dependant)
    }
    guard case .success(let dependant) = made else { return done(made) }
    commit([storage.inserting(dependant)], answer: dependant, done)
  }

  /// Removes the account's dependant: it checks in no more and is checked out; its past visits
  /// still count for exposure.
  public func removeDependant(account: Int64, id: Int64, _ done: @escaping Done<Void>) {
    let now = now
    let closed = state.withLock { s -> Result<Int64?, VenueError> in
      guard let dependant = s.dependants[id], dependant.accountId == account, !dependant.removed
      else { return .failure(.notFound("no such dependant")) }
      s.dependants[id]?.removed = true
      guard let open = s.open[Person(account: account, dependant: id)] else { return .success(nil) }
      Self.close(open, at: now, in: &s)
      return .success(open)
    }
    guard case .success(let open) = closed else {
      if case .failure(let error) = closed { done(.failure(error)) }
      return
    }
    let removal = storage.removingDependant(id)
    commit([removal] + (open.map { [sync($0)] } ?? []), done)
  }

  /// The account's dependants, in the order they were added.
  public func dependants(account: Int64) -> [Dependant] {
    state.withLock { s in
      (s.dependantsOf[account] ?? []).compactMap { s.dependants[$0] }.filter { !$0.removed }
    }
  }
}
