import GRDB

/// A domain module's write: a closure over the open transaction, and what may only happen once
/// that transaction is durable (publishing to subscribers, removing a deleted record's file).
public struct TransactionWrite: SQLiteWrite {
  let body: @Sendable (GRDB.Database) throws -> Void
  let afterCommit: @Sendable () -> Void
  public let inSavepoint: Bool

  public init(
    inSavepoint: Bool = true, body: @escaping @Sendable (GRDB.Database) throws -> Void,
    afterCommit: @escaping @Sendable () -> Void = {}
  ) {
    self.inSavepoint = inSavepoint
    self.body = body
    self.afterCommit = afterCommit
  }

  public func apply(to db: GRDB.Database) throws { try body(db) }
  public func committed() { afterCommit() }
}
