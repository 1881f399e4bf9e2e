import GRDB

/// A write brought to the group commit (a domain module's record, a command's keyspace changes):
/// it runs in the writer's transaction, so a command's writes become durable together, with the
/// same fsync as the other commands', before the command is answered.
///
/// Each commit that holds such writes runs in a savepoint of its own: a write that throws (a
/// constraint the domain did not foresee) fails its own command and rolls back all it wrote,
/// and the other commands of the transaction go through.
public protocol DurableWrite: Sendable {
  func apply(to db: GRDB.Database) throws
  /// Applies the write through what the transaction holds for writes of its kind (prepared
  /// statements made once per transaction, not once per write); by default `apply(to:)`.
  func apply(in transaction: StoreTransaction) throws
  /// What the write counts as in the store's statistics (a keyspace write: its changes).
  var changeCount: Int { get }
  /// Runs once the transaction that applied it is durable, on the store's writer thread before
  /// the command's completion: what may only happen after the change is safe (telling
  /// subscribers). Not run when the write or its transaction failed. Must be quick.
  func committed()
  /// False for a write too large for a savepoint of its own (a bulk import's chunk of rows):
  /// inside a savepoint, SQLite's statement journal makes each statement that ends walk all
  /// the savepoint wrote before it, which made a 1,000-row chunk quadratic. Such a write's
  /// error fails its whole transaction, the other commands in it included.
  var inSavepoint: Bool { get }
  /// False for a write that can fail only as the whole transaction fails (SQLite's own error:
  /// a full disk), which needs no savepoint: a commit of only such writes is written without
  /// one, which a savepoint per GEOADD would slow. With other writes, it shares their
  /// savepoint.
  var needsSavepoint: Bool { get }
}

extension DurableWrite {
  public func apply(in transaction: StoreTransaction) throws { try apply(to: transaction.db) }
  public func committed() {}
  public var inSavepoint: Bool { true }
  public var needsSavepoint: Bool { true }
  public var changeCount: Int { 1 }
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
