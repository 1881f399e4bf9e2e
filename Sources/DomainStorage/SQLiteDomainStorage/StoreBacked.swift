import Durability
import Store

/// A domain's storage on the embedded store: its writes go to the store's group commit.
protocol StoreBacked: WriteCommitter {
  var store: Store { get }
}

extension StoreBacked {
  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(writes, completion: completion)
  }
}
