import Durability

/// What the uploads need from a store: their rows read back at start, and the writes that keep
/// them, made durable in the group commit with the rest of their command (`commit`). The
/// embedded store's is `SQLiteDomainStorage.SQLiteAssets`; a store many nodes share keeps each
/// owner's quota where every node's uploads are (`AssetsRaced`) and carries each write's
/// `AssetChange` to every node (`Assets.apply(followed:own:)`).
public protocol AssetStorage: WriteCommitter {
  /// Every upload on file.
  func loadAll() throws -> [Asset]
  /// A new upload, its owner's uploads then taking at most `quota` bytes.
  func inserting(_ asset: Asset, quota: Int) -> any DurableWrite
  func deleting(_ ids: [String]) -> any DurableWrite
}

/// An upload refused by a store many nodes share: the owner's uploads stored by other nodes
/// meanwhile leave no room in the quota. Nothing was written.
public struct AssetsRaced: Error, CustomStringConvertible {
  public init() {}

  public var description: String { "another node stored uploads that fill the owner's quota" }
}
