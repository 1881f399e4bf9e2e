import Durability

/// What the documents need from a store: their rows read back at start, and the writes that
/// keep them, made durable in the group commit with the rest of their command (`commit`). The
/// embedded store's is `SQLiteDocuments`; the rules never see a statement.
public protocol DocumentStorage: WriteCommitter {
  /// Every document on file.
  func loadAll() throws -> [Document]
  func inserting(_ document: Document) -> any DurableWrite
  func deleting(_ id: Int64) -> any DurableWrite
  /// The account's documents, when the account goes: in the account deletion's transaction.
  func deletingAll(of account: Int64) -> any DurableWrite
}
