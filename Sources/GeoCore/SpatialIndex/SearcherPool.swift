import Synchronization

/// Searchers for an index, reused across queries so that a query allocates nothing once warm:
/// each thread with a `ThreadSlot` keeps its own (only that thread touches its slot); other
/// threads, and a query nested inside another on the same thread, borrow one from a shared pool.
public final class SearcherPool: @unchecked Sendable {
  public let index: GeoIndex
  private let own = PerThread<GeoSearcher>()
  private let free = Mutex(Idle())

  public init(index: GeoIndex) { self.index = index }

  /// Runs `body` with a searcher no other query uses meanwhile.
  public func withSearcher<R>(_ body: (GeoSearcher) throws -> R) rethrows -> R {
    // Taken out of the slot while in use, so a nested query on this thread cannot share it.
    if let slot = ThreadSlot.current {
      let searcher = own.take(slot) ?? index.makeSearcher()
      defer { own[slot] = searcher }
      return try body(searcher)
    }
    let searcher = free.withLock { $0.take() }.searcher ?? index.makeSearcher()
    defer { free.withLock { $0.searchers.append(searcher) } }
    return try body(searcher)
  }

  /// Idle searchers; each is used by one thread at a time.
  private struct Idle: @unchecked Sendable {
    var searchers: [GeoSearcher] = []
    struct Taken: @unchecked Sendable { let searcher: GeoSearcher? }
    mutating func take() -> Taken { Taken(searcher: searchers.popLast()) }
  }
}
