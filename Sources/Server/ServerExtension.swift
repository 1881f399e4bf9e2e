import Commands
import Store

/// What a domain module (cards, pins, venues) brings to the server, which composes them: the
/// tables its records need, and, once the store is open, its state loaded from the store and the
/// commands that serve it. The RESP server itself knows nothing of any domain.
public struct ServerExtension: Sendable {
  public let name: String
  public let migrations: [StoreMigration]
  /// Loads the module's state from the open store; returns its commands.
  public let start: @Sendable (Store) throws -> [CommandSpec]

  public init(
    name: String, migrations: [StoreMigration],
    start: @escaping @Sendable (Store) throws -> [CommandSpec]
  ) {
    self.name = name
    self.migrations = migrations
    self.start = start
  }
}
