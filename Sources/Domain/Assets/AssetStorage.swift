import Durability

/// What the uploads need from a store: their rows read back at start, and the writes that keep
/// them, made durable in the group commit with the rest of their command (`commit`). The
/// embedded store's is `SQLiteDomainStorage.SQLiteAssets`.
public protocol AssetStorage: WriteCommitter {
  /// Every upload on file.
  func loadAll() throws -> [Asset]
  func inserting(_ asset: Asset) -> any DurableWrite
  func deleting(_ ids: [String]) -> any DurableWrite
}
