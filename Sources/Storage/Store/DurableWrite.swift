import GRDB

/// A write a domain module brings to the group commit, beside a command's keyspace `Change`s:
/// it runs in the writer's transaction, so a record and the command's other writes become
/// durable together, with the same fsync, before the command is answered.
///
/// Each commit that holds such writes runs in a savepoint of its own: a write that throws (a
/// constraint the domain did not foresee) fails its own command and rolls back all it wrote,
/// and the other commands of the transaction go through.
public protocol DurableWrite: Sendable {
  func apply(to db: GRDB.Database) throws
  /// Runs once the transaction that applied it is durable, on the store's writer thread before
  /// the command's completion: what may only happen after the change is safe (telling
  /// subscribers). Not run when the write or its transaction failed. Must be quick.
  func committed()
  /// False for a write too large for a savepoint of its own (a bulk import's chunk of rows):
  /// inside a savepoint, SQLite's statement journal makes each statement that ends walk all
  /// the savepoint wrote before it, which made a 1,000-row chunk quadratic. Such a write's
  /// error fails its whole transaction, the other commands in it included.
  var inSavepoint: Bool { get }
}

extension DurableWrite {
  public func committed() {}
  public var inSavepoint: Bool { true }
}
