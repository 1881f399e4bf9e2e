import Durability

/// What the documents need from a store: their rows read back at start, and the writes that
/// keep them, made durable in the group commit with the rest of their command (`commit`). The
/// embedded store's is `SQLiteDocuments`; the rules never see a statement. A store many nodes
/// share hands out ids in blocks (`documentIDs`), refuses a document past its owner's limit
/// where every node's are (`DocumentsRaced`), and carries each write's `DocumentChange` to every
/// node (`Documents.apply(followed:own:)`).
public protocol DocumentStorage: WriteCommitter {
  /// Every document on file.
  func loadAll() throws -> [Document]
  /// A new document, its owner then holding at most `limit`.
  func inserting(_ document: Document, limit: Int) -> any DurableWrite
  func deleting(_ id: Int64) -> any DurableWrite
  /// The account's documents, when the account goes: in the account deletion's transaction.
  func deletingAll(of account: Int64) -> any DurableWrite
  /// Where new documents' ids come from when nodes share the store (nil: one after the
  /// highest, counted in memory).
  var documentIDs: (any IDBlocks)? { get }
}

extension DocumentStorage {
  public var documentIDs: (any IDBlocks)? { nil }
}

/// A new document refused by a store many nodes share: the owner's documents stored by
/// other nodes meanwhile leave no room under the limit. Nothing was written.
public struct DocumentsRaced: Error, CustomStringConvertible {
  public init() {}

  public var description: String { "another node stored the owner's last allowed document" }
}
