import Commands
import DomainSupport
import Foundation
import Logging
import Store

/// What the server opens before anything is built on it: the store, with the migrations of
/// every module that keeps tables in it, and the pub/sub hub that what the modules publish
/// reaches. The domain is built on these, then the server (`CardAtlasServer`) serves both.
public struct ServerFoundation: Sendable {
  public let store: Store
  let hub = PubSubHub()

  /// Delivers what the domain publishes to the connections subscribed (Redis's pub/sub).
  public var notifier: any Notifier { PubSubNotifier(hub: hub) }

  public init(
    configuration: ServerConfiguration, migrations: [StoreMigration], logger: Logger
  ) throws {
    MemoryTuning.returnLargeBlocksToTheSystem()
    try FileManager.default.createDirectory(
      atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    store = try Store(
      directory: configuration.dataDirectory, fsync: configuration.fsync,
      migrations: migrations, logger: logger)
  }
}
