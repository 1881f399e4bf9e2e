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
  /// Applies a committed change in the feed's order, `own` when this node wrote it. Each
  /// carries the state its transaction wrote; a request this node is writing is settled by its
  /// own last row (`ExchangeState.follow`). An exchange is in memory already on the node that
  /// wrote it, and only an account's end undoes it; that end applies again, after the rows of
  /// the account's requests that came before it.
  public func apply(followed change: ExchangeChange, own: Bool) {
    exchangeState.withLock { s in
      switch change {
      case .request(let from, let to, let at): s.follow(from, to, at: at, own: own)
      case .exchanged(let a, let b): if !own { s.pair(a, b, exchanged: true) }
      case .deletedAll(let account): s.forget(account)
      }
    }
  }
}
