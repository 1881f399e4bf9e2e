import Assets
import Documents
import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// Moving an embedded store's private documents and uploads, rows and bytes, into a database
/// (`cardatlas migrate --to`), and checking they arrived; as `CardsTransfer` does for the cards.
/// Each file's bytes move into `media_files` under its name.
public enum UploadsTransfer {
  /// What moves: as the embedded store's storage reads it, with each file's bytes by name.
  public struct Tables: Sendable {
    public var documents: [Document]
    public var documentFiles: [String: [UInt8]]
    public var assets: [Asset]
    public var assetFiles: [String: [UInt8]]

    public init(
      documents: [Document], documentFiles: [String: [UInt8]], assets: [Asset],
      assetFiles: [String: [UInt8]]
    ) {
      self.documents = documents
      self.documentFiles = documentFiles
      self.assets = assets
      self.assetFiles = assetFiles
    }
  }

  /// Writes `tables` into `store`'s tables (empty: the cards' check found the database so),
  /// then moves the documents' id sequence past the highest id given.
  public static func fill(
    _ store: PostgresStore, with tables: Tables, chunk: Int = 1_000, logger: Logger
  ) async throws {
    let connection = try await store.connector.primary()
    defer { connection.discard() }
    try await MediaTransfer.insert(
      tables.documentFiles, kind: PostgresDocuments.fileKind, on: connection, logger: logger)
    try await MediaTransfer.insert(
      tables.assetFiles, kind: PostgresAssets.fileKind, on: connection, logger: logger)
    for part in tables.documents.chunks(chunk) {
      try await connection.query(
        """
        INSERT INTO documents (id, account_id, kind, day, type, size, file, created_at)
        SELECT id, owner, kind, day::date, type, size, file, created
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.ownerId)), \(part.map(\.kind.rawValue)),
          \(part.map(\.day)), \(part.map(\.type.rawValue)),
          \(part.map { Int32(clamping: $0.size) }), \(part.map(\.file)), \(part.map(\.createdAt)))
          AS moved (id, owner, kind, day, type, size, file, created)
        """, logger: logger)
    }
    for part in tables.assets.chunks(chunk) {
      // Arrays hold no NULL here: -1 stands for none.
      try await connection.query(
        """
        INSERT INTO assets (id, owner_id, kind, type, bytes, width, height, created_at)
        SELECT id, owner, kind, type, bytes, NULLIF(width, -1), NULLIF(height, -1), created
        FROM unnest(
          \(part.map(\.id)), \(part.map(\.ownerId)), \(part.map(\.kind.rawValue)),
          \(part.map(\.type.rawValue)), \(part.map { Int32(clamping: $0.bytes) }),
          \(part.map { Int32(clamping: $0.width ?? -1) }),
          \(part.map { Int32(clamping: $0.height ?? -1) }), \(part.map(\.createdAt)))
          AS moved (id, owner, kind, type, bytes, width, height, created)
        """, logger: logger)
    }
    let next = (tables.documents.map(\.id).max() ?? 0) + 1
    try await connection.run(
      "SELECT setval('document_id_blocks', \(next), false)", logger: logger)
  }

  /// What the database's tables hold, summed up as `UploadsSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> UploadsSummary
  {
    try await store.snapshot { connection, _ in
      UploadsSummary(
        Tables(
          documents: try await PostgresDocuments.read(on: connection, logger: logger),
          documentFiles: try await MediaTransfer.read(
            kind: PostgresDocuments.fileKind, on: connection, logger: logger),
          assets: try await PostgresAssets.read(on: connection, logger: logger),
          assetFiles: try await MediaTransfer.read(
            kind: PostgresAssets.fileKind, on: connection, logger: logger)))
    }
  }
}

/// Counts and an order-free checksum of the documents and uploads (every column) and their
/// files' bytes.
public struct UploadsSummary: Equatable, Sendable, CustomStringConvertible {
  public let documents: Int
  public let assets: Int
  public let files: Int
  public let checksum: UInt64

  public init(_ tables: UploadsTransfer.Tables) {
    documents = tables.documents.count
    assets = tables.assets.count
    files = tables.documentFiles.count + tables.assetFiles.count
    var sum = TransferChecksumSum()
    for d in tables.documents {
      sum.add {
        $0.add("document")
        $0.add(d.id)
        $0.add(d.ownerId)
        $0.add("\(d.kind.rawValue) \(d.day) \(d.type.rawValue) \(d.size) \(d.file)")
        $0.add(Int64(d.createdAt.timeIntervalSince1970.rounded()))
      }
    }
    for a in tables.assets {
      sum.add {
        $0.add("asset")
        $0.add(a.id)
        $0.add(a.ownerId)
        $0.add(
          "\(a.kind.rawValue) \(a.type.rawValue) \(a.bytes) \(a.width ?? -1) \(a.height ?? -1)")
        $0.add(Int64(a.createdAt.timeIntervalSince1970.rounded()))
      }
    }
    MediaTransfer.add(tables.documentFiles, to: &sum)
    MediaTransfer.add(tables.assetFiles, to: &sum)
    checksum = sum.value
  }

  public var description: String {
    "\(documents) documents and \(assets) uploads (\(files) files), checksum "
      + String(checksum, radix: 16)
  }
}
