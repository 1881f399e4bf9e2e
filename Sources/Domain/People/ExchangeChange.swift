/// One exchange write as every node applies it, in the order the shared store committed them
/// (`People.apply(followed:)`): a request's state as written, a pair that exchanged, or an
/// account's requests and exchanges gone.
public enum ExchangeChange: Sendable, Equatable, Codable {
  /// The request (from, to) made at `at` (seconds since 1970), or none.
  case request(from: Int64, to: Int64, at: Double?)
  case exchanged(Int64, Int64)
  case deletedAll(account: Int64)
}

extension People {
  /// Applies a committed change, this node's own included: each carries the state its
  /// transaction wrote, so applying them all in commit order leaves memory as the database is,
  /// whichever node wrote last.
  public func apply(followed change: ExchangeChange) {
    exchangeState.withLock { s in
      switch change {
      case .request(let from, let to, let at?): s.setRequest(from, to, at: at)
      case .request(let from, let to, nil): s.removeRequest(from, to)
      case .exchanged(let a, let b): s.pair(a, b, exchanged: true)
      case .deletedAll(let account):
        s.forget(account)
      }
    }
  }
}
