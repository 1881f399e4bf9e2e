import GRDB

/// Ids of tables with AUTOINCREMENT for writers that hand them out themselves (a bulk import).
public enum RowIds {
  /// The id after the highest `table` has ever given: its sequence (which remembers deleted
  /// rows), or its rows' if higher. `table` is a name of ours, never a client's.
  public static func next(after table: String, _ db: Database) throws -> Int64 {
    let highest = try Int64.fetchOne(
      db,
      sql: """
        SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0),
          coalesce((SELECT max(id) FROM \(table)), 0))
        """, arguments: [table])
    return (highest ?? 0) + 1
  }
}
