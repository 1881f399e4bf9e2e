import Commands
import DomainSupport
import Store

/// A module the server opens the store for and starts on it (`CardAtlasServer`'s convenience
/// initializer): the tables it needs, then its state loaded from the store and the commands
/// that serve it. The daemon builds its domain itself (`Daemon`) and hands the server only the
/// `Parts`. The RESP server knows nothing of any domain.
public struct ServerExtension: Sendable {
  /// What a module gives the server once started: its commands, and what AUTH and `--demo` ask
  /// of it.
  public struct Parts {
    public var commands: [CommandSpec]
    /// Signs accounts in through AUTH and HELLO (the accounts module's).
    public var accounts: (any AccountSignIn)?
    /// Loads the module's demo data into an empty store (`serve --demo`).
    public var loadDemo: (@Sendable () throws -> Void)?

    public init(
      commands: [CommandSpec], accounts: (any AccountSignIn)? = nil,
      loadDemo: (@Sendable () throws -> Void)? = nil
    ) {
      self.commands = commands
      self.accounts = accounts
      self.loadDemo = loadDemo
    }
  }

  public let name: String
  public let migrations: [StoreMigration]
  /// Loads the module's state from the open store; returns what it serves. The notifier
  /// delivers what the module publishes to the connections subscribed (pub/sub).
  public let start: @Sendable (Store, any Notifier) throws -> Parts

  public init(
    name: String, migrations: [StoreMigration],
    start: @escaping @Sendable (Store, any Notifier) throws -> Parts
  ) {
    self.name = name
    self.migrations = migrations
    self.start = start
  }

  /// A module that publishes nothing.
  public init(
    name: String, migrations: [StoreMigration], start: @escaping @Sendable (Store) throws -> Parts
  ) {
    self.init(name: name, migrations: migrations) { store, _ in try start(store) }
  }
}
