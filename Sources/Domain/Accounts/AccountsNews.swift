import RateLimits

/// What one node tells the nodes that share its accounts and is not a write: a password
/// check's outcome, or an event one of the accounts' limits counted. Each node counts it as its
/// own (`Accounts.apply(followed:)`), so that guesses, sign-ups and reset requests spread over
/// nodes meet the same throttle and limits as on one. Not durable, as the counts are not.
public enum AccountsNews: Sendable, Equatable, Codable {
  /// The email's key (`Account.emailKey`) and the address (`ClientAddress.key`).
  case signIn(email: String, address: String, failed: Bool)
  case counted(AccountLimit, keys: [String])
}

/// The accounts' limits per address or email.
public enum AccountLimit: String, Sendable, Codable {
  case signUps, resetsByAddress, resetsByEmail, signUpNotices
}

extension Accounts {
  /// Tells `news` every password check's outcome and every event the limits count, from now
  /// on: a store many nodes share carries them to the other nodes.
  public func shareNews(_ news: @escaping @Sendable (AccountsNews) -> Void) {
    newsShare.withLock { $0 = news }
  }

  func share(_ news: AccountsNews) {
    newsShare.withLock { $0 }?(news)
  }

  /// Counts another node's news here.
  public func apply(followed news: AccountsNews) {
    switch news {
    case .signIn(let email, let address, let failed):
      let attempt = throttle.attempt(email: email, address: address)
      if failed { throttle.failed(attempt) } else { throttle.succeeded(attempt) }
    case .counted(let limit, let keys):
      self.limit(limit).record(keys)
    }
  }

  /// Takes one event of `limit` on `keys` (`KeyedLimit.take`); an event counted is news.
  func take(_ limit: AccountLimit, _ keys: [String]) -> Int? {
    let wait = self.limit(limit).take(keys)
    if wait == nil { share(.counted(limit, keys: keys)) }
    return wait
  }

  private func limit(_ limit: AccountLimit) -> KeyedLimit {
    switch limit {
    case .signUps: signUps
    case .resetsByAddress: resetsByAddress
    case .resetsByEmail: resetsByEmail
    case .signUpNotices: signUpNotices
    }
  }
}
