/// A write brought to a store's group commit (a domain module's record, a command's keyspace
/// changes, a message to publish once the rest is safe): the writes of one command become
/// durable together, with the same fsync as the other commands', before the command is
/// answered. What a write puts in the database is the store's business (`SQLiteWrite` for the
/// embedded store); what is said here holds for any store, so the domain can speak of writes
/// without knowing which store takes them.
///
/// Each commit that holds such writes runs in a savepoint of its own: a write that throws (a
/// constraint the domain did not foresee) fails its own command and rolls back all it wrote,
/// and the other commands of the transaction go through.
public protocol DurableWrite: Sendable {
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
  /// False for a write that can fail only as the whole transaction fails (the database's own
  /// error: a full disk), which needs no savepoint: a commit of only such writes is written
  /// without one, which a savepoint per GEOADD would slow. With other writes, it shares their
  /// savepoint.
  var needsSavepoint: Bool { get }
}

extension DurableWrite {
  public func committed() {}
  public var inSavepoint: Bool { true }
  public var needsSavepoint: Bool { true }
  public var changeCount: Int { 1 }
}

/// Where the domain's writes go: a store that makes a command's writes durable together, in
/// one group commit with other commands'. `completion` runs once they are durable, or have
/// failed (a failing write fails only its own command), in commit order; it must not block on
/// another commit.
public protocol WriteCommitter: Sendable {
  func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

extension WriteCommitter {
  /// Commits `writes` and returns once they are durable.
  public func commit(_ writes: [any DurableWrite]) async throws {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      commit(writes) { continuation.resume(with: $0) }
    }
  }
}

/// A write that writes nothing: `action` runs once the rest of its commit is durable (a file
/// removed after the row that named it is gone; a message published).
public struct AfterCommit: DurableWrite {
  let action: @Sendable () -> Void

  public init(_ action: @escaping @Sendable () -> Void) { self.action = action }

  public var changeCount: Int { 0 }
  public func committed() { action() }
}

/// Why a store's commit failed, when the store can tell that nothing was written: it could not
/// be reached (a database restarting or failing over, a node shutting down), not that the write
/// was refused. The command may be sent again; the RESP door answers such a failure with
/// Redis Cluster's `TRYAGAIN`, which clients retry.
public protocol StoreFailure: Error {
  var nothingWritten: Bool { get }
  /// Set when whether the commit went through is learnt later (`unlessCommittedLater`).
  var outcomeLater: OutcomeLater? { get }
}

extension StoreFailure {
  public var outcomeLater: OutcomeLater? { nil }
}
