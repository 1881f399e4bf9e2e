import Logging
import PostgresNIO

/// How long the change feed keeps its rows. A row goes once every live node has applied it and
/// it is older than `minimumAge`; a node is live while its follower reports within
/// `nodeTimeout` (`cardatlas_nodes`). A node started later loads from the tables, not the feed,
/// so nothing it needs is lost. A node silent for longer (a machine paused, a partition) may
/// find rows it had not applied gone: its follower sees `pruned_through` past its position and
/// reports it fell behind, and the node must load afresh (docs/STORE.md, "Many nodes").
public struct FeedRetention: Sendable {
  /// Rows younger than this stay: a commit whose answer was lost is settled by its row.
  public var minimumAge: Duration = .seconds(600)
  public var nodeTimeout: Duration = .seconds(300)
  /// How often each node prunes.
  public var interval: Duration = .seconds(30)

  public init() {}

  static let migrations = [
    PostgresMigration(
      "feed-v2",
      [
        """
        CREATE TABLE cardatlas_nodes (
          node text PRIMARY KEY,
          position bigint NOT NULL,
          seen_at timestamptz NOT NULL DEFAULT clock_timestamp())
        """,
        "CREATE TABLE cardatlas_feed_state (pruned_through bigint NOT NULL)",
        "INSERT INTO cardatlas_feed_state VALUES (0)",
      ])
  ]

  /// Records that `node` has applied the feed up to `position`.
  static func report(
    node: String, position: Int64, on connection: PostgresConnection, logger: Logger
  ) async throws {
    try await connection.query(
      """
      INSERT INTO cardatlas_nodes (node, position) VALUES (\(node), \(position))
      ON CONFLICT (node) DO UPDATE SET position = excluded.position, seen_at = clock_timestamp()
      """, logger: logger)
  }

  /// A node that stops cleanly holds nothing back.
  static func leave(node: String, on connection: PostgresConnection, logger: Logger) async throws {
    try await connection.query("DELETE FROM cardatlas_nodes WHERE node = \(node)", logger: logger)
  }

  /// Rows up to this id may be gone.
  static func prunedThrough(on connection: PostgresConnection, logger: Logger) async throws
    -> Int64
  {
    try await connection.query("SELECT pruned_through FROM cardatlas_feed_state", logger: logger)
      .collect().first?.decode(Int64.self) ?? 0
  }

  /// Deletes the rows every live node has applied and older than `minimumAge`, the newest row
  /// always kept (a new node's start reads its id); forgets nodes silent for a day. Returns the
  /// rows deleted.
  @discardableResult
  func prune(on connection: PostgresConnection, logger: Logger) async throws -> Int {
    let age = Self.seconds(minimumAge)
    let timeout = Self.seconds(nodeTimeout)
    return try await connection.withTransaction(logger: logger) { connection in
      try await connection.run(
        "SELECT pg_advisory_xact_lock(\(PostgresLocks.prune))", logger: logger)
      let rows = try await connection.query(
        """
        WITH bound AS (
          SELECT least(
            (SELECT min(position) FROM cardatlas_nodes
              WHERE seen_at > clock_timestamp() - make_interval(secs => \(timeout))),
            (SELECT max(id) - 1 FROM cardatlas_changes)) AS through),
        gone AS (
          DELETE FROM cardatlas_changes
          WHERE id <= (SELECT through FROM bound)
            AND committed_at < clock_timestamp() - make_interval(secs => \(age))
          RETURNING id)
        SELECT count(*)::bigint, coalesce(max(id), 0)::bigint FROM gone
        """, logger: logger)
      guard let (count, through) = try await rows.collect().first?.decode((Int64, Int64).self)
      else { return 0 }
      try await connection.query(
        """
        UPDATE cardatlas_feed_state SET pruned_through = greatest(pruned_through, \(through))
        """, logger: logger)
      try await connection.query(
        "DELETE FROM cardatlas_nodes WHERE seen_at < clock_timestamp() - interval '1 day'",
        logger: logger)
      return Int(count)
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
