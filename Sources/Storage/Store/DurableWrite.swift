@_exported import Durability
import GRDB

/// A write for the embedded store: what it puts in the database, run in the writer's open
/// transaction. A `DurableWrite` that is not one writes nothing (a message published once the
/// rest of its commit is durable).
public protocol SQLiteWrite: DurableWrite {
  func apply(to db: GRDB.Database) throws
  /// Applies the write through what the transaction holds for writes of its kind (prepared
  /// statements made once per transaction, not once per write); by default `apply(to:)`.
  func apply(in transaction: StoreTransaction) throws
}

extension SQLiteWrite {
  public func apply(in transaction: StoreTransaction) throws { try apply(to: transaction.db) }
}
/// The writer's open transaction, as the writes in it see it: the connection, and state that
/// writes of one kind share for the length of the transaction (made by the first that asks).
/// Used on the writer thread only.
public final class StoreTransaction {
  public let db: GRDB.Database
  private var shared: [ObjectIdentifier: AnyObject] = [:]

  init(_ db: GRDB.Database) { self.db = db }

  /// The transaction's `State`, made by `make` the first time it is asked for.
  public func shared<State: AnyObject>(
    _ type: State.Type, make: (GRDB.Database) throws -> State
  ) rethrows -> State {
    if let state = shared[ObjectIdentifier(type)] { return unsafeDowncast(state, to: State.self) }
    let state = try make(db)
    shared[ObjectIdentifier(type)] = state
    return state
  }
}
