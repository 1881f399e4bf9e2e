import Logging
import PostgresNIO

/// One step of a module's tables in PostgreSQL, frozen once shipped (as the embedded store's
/// are): a store made by an older build opens and upgrades. Its statements run in one
/// transaction, in order.
public struct PostgresMigration: Sendable {
  public let name: String
  public let statements: [String]

  public init(_ name: String, _ statements: [String]) {
    self.name = name
    self.statements = statements
  }

  /// Applies those of `migrations` not yet applied, in order. Nodes starting together take
  /// turns: a session lock held while they run.
  static func migrate(
    _ migrations: [PostgresMigration], on connection: PostgresConnection, logger: Logger
  ) async throws {
    try await connection.run(
      "SELECT pg_advisory_lock(\(PostgresLocks.migrations))", logger: logger)
    do {
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS cardatlas_migrations (
          name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
        """, logger: logger)
      let applied = Set(
        try await connection.query("SELECT name FROM cardatlas_migrations", logger: logger)
          .collect().map { try $0.decode(String.self) })
      for migration in migrations where !applied.contains(migration.name) {
        try await connection.withTransaction(logger: logger) { connection in
          for statement in migration.statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
          }
          try await connection.query(
            "INSERT INTO cardatlas_migrations (name) VALUES (\(migration.name))", logger: logger)
        }
        logger.info("applied migration", metadata: ["name": "\(migration.name)"])
      }
    } catch {
      _ = try? await connection.run(
        "SELECT pg_advisory_unlock(\(PostgresLocks.migrations))", logger: logger)
      throw error
    }
    try await connection.run(
      "SELECT pg_advisory_unlock(\(PostgresLocks.migrations))", logger: logger)
  }
}

/// The advisory locks the nodes share (keys chosen to be unlikely in another application's
/// database).
enum PostgresLocks {
  /// Held while migrations run.
  static let migrations: Int64 = 0x4361_7264_0001
  /// Held while `cardatlas_sequence_changes` gives the feed's rows their ids (its text holds
  /// the number), so ids follow the order commits depend on each other in.
  static let feed: Int64 = 0x4361_7264_0002
  /// Held while a node prunes the feed.
  static let prune: Int64 = 0x4361_7264_0003
}
