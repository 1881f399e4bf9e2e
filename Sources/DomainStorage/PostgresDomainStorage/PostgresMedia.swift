import Dispatch
import Logging
import MediaFiles
import PostgresNIO
import PostgresStore
import Synchronization

/// Uploaded bytes in PostgreSQL (`media_files`), where every node reads them: a photo uploaded
/// on one node opens on another. Each write commits alone, before the row naming it, as a file
/// is synced before its row in the embedded store (`MediaStore`). `kind` keeps each module's
/// rows apart, so one module's sweep never takes another's.
public struct PostgresMedia: MediaStore {
  public static let migrations = [
    PostgresMigration(
      "media-v1",
      [
        """
        CREATE TABLE media_files (
          name text PRIMARY KEY,
          kind text NOT NULL,
          bytes bytea NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE INDEX media_files_by_kind ON media_files (kind, created_at)",
      ])
  ]

  /// How old unnamed bytes must be before a sweep takes them: younger ones may belong to a row
  /// another node is about to commit.
  static let sweepAge = "1 hour"
  static let deadline = Duration.seconds(30)

  let connector: PostgresConnector
  let kind: String
  let logger: Logger

  public init(store: PostgresStore, kind: String, logger: Logger) {
    connector = store.connector
    self.kind = kind
    self.logger = logger
  }

  public func write(_ bytes: [UInt8], type: MediaType) throws -> String {
    let name = MediaFiles.newName(type)
    try blocking { [kind, logger] connection in
      try await connection.query(
        """
        INSERT INTO media_files (name, kind, bytes) VALUES (\(name), \(kind), \(ByteBuffer(bytes: bytes)))
        """, logger: logger)
    }
    return name
  }

  public func read(_ name: String) throws -> [UInt8] {
    let found = try blocking { [kind, logger] connection in
      try await connection.query(
        "SELECT bytes FROM media_files WHERE name = \(name) AND kind = \(kind)", logger: logger
      ).collect().first?.decode(ByteBuffer.self)
    }
    guard let found else { throw MediaFilesError.missing(name) }
    return Array(buffer: found)
  }

  /// Deleted in the background: it runs after a commit, on the writer's thread. One that fails
  /// is left to a later sweep.
  public func remove(_ name: String) {
    Task(executorPreference: connector.executor) { [connector, kind, logger] in
      do {
        let connection = try await connector.primary()
        defer { connection.discard() }
        try await QueryDeadline.within(Self.deadline, closing: connection, on: connector.executor) {
          try await connection.query(
            "DELETE FROM media_files WHERE name = \(name) AND kind = \(kind)", logger: logger)
        }
      } catch {
        logger.warning(
          "could not remove uploaded bytes", metadata: ["name": "\(name)", "error": "\(error)"])
      }
    }
  }

  /// Removes this kind's bytes no row names and older than `sweepAge`, in the background (it
  /// is called as a node loads, on Swift's pool, which must not wait on I/O).
  public func removeUnnamed(keeping: Set<String>) {
    let names = Array(keeping)
    Task(executorPreference: connector.executor) { [connector, kind, logger] in
      do {
        let connection = try await connector.primary()
        defer { connection.discard() }
        let removed = try await QueryDeadline.within(
          .seconds(300), closing: connection, on: connector.executor
        ) {
          try await connection.query(
            """
            DELETE FROM media_files
            WHERE kind = \(kind) AND created_at < now() - \(Self.sweepAge)::interval
              AND NOT (name = ANY(\(names)))
            RETURNING 1
            """, logger: logger
          ).collect().count
        }
        if removed > 0 { logger.info("removed unnamed uploads", metadata: ["rows": "\(removed)"]) }
      } catch {
        logger.warning("could not sweep uploads", metadata: ["error": "\(error)"])
      }
    }
  }

  /// Runs `body` on a connection of its own and waits for it: the callers are Dispatch queues
  /// made to wait on I/O (a photo's writer, its reader), never Swift's cooperative pool.
  private func blocking<T: Sendable>(
    _ body: @escaping @Sendable (PostgresConnection) async throws -> T
  ) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Task(executorPreference: connector.executor) { [connector] in
      do {
        let connection = try await connector.primary()
        defer { connection.discard() }
        let value = try await QueryDeadline.within(
          Self.deadline, closing: connection, on: connector.executor
        ) {
          try await body(connection)
        }
        result.withLock { $0 = .success(value) }
      } catch {
        result.withLock { $0 = .failure(error) }
      }
      finished.signal()
    }
    finished.wait()
    return try result.withLock { $0! }.get()
  }
}
