/// Where a server keeps its keyspace: the log its writes go to, and what the server asks of the
/// store behind it (the embedded store's journal and tables, or PostgreSQL).
public protocol KeyspaceStorage: Sendable {
  var log: any ChangeLog { get }
  /// INFO's persistence section, as this store reports it.
  func persistence() -> [(String, String)]
  /// INFO's replication section after Redis's own fields: how this node follows the others.
  func replication() -> [(String, String)]
  /// BACKUP: a consistent copy of the store at `path`; blocks until done.
  func backup(to path: String) throws
  /// Makes every acknowledged write durable where it stays, then closes.
  func close() async
}
