import Documents
import Durability
import Foundation
import Logging
import MediaFiles
import PostgresNIO
import PostgresStore
import Synchronization

/// The private documents' rows in PostgreSQL (`documents`, as the embedded store names it);
/// their bytes in `media_files` (`PostgresMedia`, kind `documents`). The owner's limit is kept
/// where every node's documents are (`cardatlas_document_room`). Ids come in blocks. Each
/// write's `DocumentChange` rides in the change feed to every node (`consumer(into:)`).
public final class PostgresDocuments: DocumentStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "documents-v1",
      [
        """
        CREATE TABLE documents (
          id bigint PRIMARY KEY,
          account_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          kind text NOT NULL,
          day date NOT NULL,
          type text NOT NULL,
          size integer NOT NULL,
          -- The bytes' name in media_files.
          file text NOT NULL,
          created_at timestamptz NOT NULL)
        """,
        "CREATE INDEX documents_by_account ON documents (account_id)",
        "CREATE SEQUENCE document_id_blocks INCREMENT BY \(blockSize)",
        // A new document's room under its owner's limit, counted where every node's are: the
        // owner's row is locked, so two nodes' new documents count one after the other.
        """
        CREATE FUNCTION cardatlas_document_room(owner bigint, allowed integer) RETURNS void
        LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM accounts WHERE id = owner FOR UPDATE;
          IF (SELECT count(*) FROM documents WHERE account_id = owner) >= allowed THEN
            RAISE EXCEPTION 'the owner has % documents already', allowed
              USING ERRCODE = '\(overLimitState)';
          END IF;
        END $$
        """,
      ])
  ]

  static let blockSize: Int64 = 1_000
  /// The feed section's source for document changes.
  static let source: UInt8 = 8
  /// The SQLSTATE `cardatlas_document_room` raises.
  static let overLimitState = "CA002"
  /// The bytes' kind in `media_files`.
  public static let fileKind = "documents"

  let store: PostgresStore
  public let documentIDs: (any IDBlocks)?
  private let loaded: LoadedOnce<[Document]>
  private let position: FeedPosition
  private let logger: Logger

  /// Reads every document in one snapshot, and takes this node's first block of ids.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    let (documents, position) = try await store.snapshot { connection, position in
      (try await Self.read(on: connection, logger: logger), position)
    }
    loaded = LoadedOnce(documents)
    self.position = position
    documentIDs = try await PostgresIDBlocks(
      sequence: "document_id_blocks", blockSize: Self.blockSize, connector: store.connector,
      logger: logger)
  }

  /// Hands on what was read at start, once.
  public func loadAll() throws -> [Document] {
    loaded.take() ?? []
  }

  /// Applies every other node's document changes to `documents`, from where the load read.
  public func consumer(into documents: Documents) -> FeedConsumer {
    .changes(
      DocumentChange.self, source: Self.source, after: position, store: store, logger: logger
    ) { change, own in documents.apply(followed: change, own: own) }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(
      writes, refusing: Self.overLimitState, as: { DocumentsRaced() }, completion: completion)
  }

  public func inserting(_ document: Document, limit: Int) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.run(
        "SELECT cardatlas_document_room(\(document.ownerId), \(Int32(clamping: limit)))",
        logger: logger)
      try await connection.query(
        """
        INSERT INTO documents (id, account_id, kind, day, type, size, file, created_at)
        VALUES (\(document.id), \(document.ownerId), \(document.kind.rawValue),
          \(document.day)::date, \(document.type.rawValue), \(Int32(clamping: document.size)),
          \(document.file), \(document.createdAt))
        """, logger: logger)
      return DocumentChange.added(document)
    }
  }

  public func deleting(_ id: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query("DELETE FROM documents WHERE id = \(id)", logger: logger)
      return DocumentChange.deleted(id: id)
    }
  }

  public func deletingAll(of account: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        "DELETE FROM documents WHERE account_id = \(account)", logger: logger)
      return DocumentChange.deletedAll(account: account)
    }
  }

  /// Every document, as `loadAll` hands them on (and `cardatlas migrate` checks them).
  static func read(on connection: PostgresConnection, logger: Logger) async throws
    -> [Document]
  {
    var documents: [Document] = []
    for try await (id, owner, kind, day, type, size, file, created) in try await connection.query(
      """
      SELECT id, account_id, kind, to_char(day, 'YYYY-MM-DD'), type, size, file, created_at
      FROM documents
      """, logger: logger
    ).decode((Int64, Int64, String, String, String, Int32, String, Date).self) {
      guard let kind = Document.Kind(rawValue: kind), let type = MediaType(rawValue: type)
      else { continue }
      documents.append(
        Document(
          id: id, ownerId: owner, kind: kind, day: day, type: type, size: Int(size),
          createdAt: created, file: file))
    }
    return documents
  }
}
