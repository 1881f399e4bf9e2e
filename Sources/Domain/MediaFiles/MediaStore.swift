/// Where uploaded bytes live, named by the row that refers to them: files in the data directory
/// (`MediaFiles`), or a table every node reads when nodes share a database. Either keeps the
/// same rule: `write` is durable before the row naming it commits, `remove` runs only after the
/// row's deletion has committed, and `removeUnnamed` at start removes what no row names.
public protocol MediaStore: Sendable {
  /// Stores `bytes`, durable when this returns, under a new random name it answers.
  func write(_ bytes: [UInt8], type: MediaType) throws -> String
  func read(_ name: String) throws -> [UInt8]
  /// Removes what a committed deletion no longer names; already gone is not an error.
  func remove(_ name: String)
  /// Removes what no loaded row names (`keeping`), once at start.
  func removeUnnamed(keeping: Set<String>)
}

extension MediaFiles: MediaStore {
  public func removeUnnamed(keeping: Set<String>) { sweep(keeping: keeping) }
}
