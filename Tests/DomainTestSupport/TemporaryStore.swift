import Foundation
import Store

/// A store in a temporary directory, for a domain module's unit tests: the module built in
/// process on it, no socket and no server. Reopening it is a restart.
public final class TemporaryStore: @unchecked Sendable {
  public let directory: String
  public let migrations: [StoreMigration]
  public private(set) var store: Store

  public init(migrations: [StoreMigration]) throws {
    directory =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-unit-\(UUID().uuidString)").path
    self.migrations = migrations
    store = try Store(directory: directory, fsync: .batch, migrations: migrations)
  }

  /// Closes the store (what is queued is written) and opens it again, as a restart does.
  public func reopen() throws -> Store {
    store.close()
    store = try Store(directory: directory, fsync: .batch, migrations: migrations)
    return store
  }

  deinit {
    store.close()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

/// A domain call's answer, handed to its completion (`Done<T>`), awaited.
public func answer<T: Sendable, E: Error>(
  _ call: (@escaping @Sendable (Result<T, E>) -> Void) -> Void
) async -> Result<T, E> {
  await withCheckedContinuation { continuation in call { continuation.resume(returning: $0) } }
}
