import Accounts
import CardCommands
import Cards
import Foundation
import Logging
import RESP
import RedisTestSupport
import Server

/// A server in this process with the accounts and cards, over a store in a temporary directory
/// (or one given).
/// Its scrypt cost is lowered (2^10) so a test can make many accounts; one test checks the
/// default's.
final class AccountServer {
  private(set) var server: CardAtlasServer
  private(set) var port: UInt16
  let directory: String
  let accounts: Accounts.Configuration
  let cards: Cards.Configuration
  /// Modules built on the accounts and cards.
  let modules: [CardDomainModule]
  /// Modules served beside the accounts and cards.
  let extra: [ServerExtension]

  init(
    accounts configure: (inout Accounts.Configuration) -> Void = { _ in },
    cards configureCards: (inout Cards.Configuration) -> Void = { _ in },
    server serverSettings: (inout ServerConfiguration) -> Void = { _ in },
    modules: [CardDomainModule] = [],
    extra: [ServerExtension] = [],
    directory: String? = nil
  ) async throws {
    self.modules = modules
    self.extra = extra
    self.directory =
      directory
      ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-accounts-\(UUID().uuidString)").path
    var accounts = Accounts.Configuration()
    accounts.hasher = PasswordHasher(costLog2: 10)
    // Tests make many accounts from one address; the limit has tests of its own.
    accounts.signUpsPerAddress = 0
    configure(&accounts)
    self.accounts = accounts
    var cards = Cards.Configuration()
    cards.publicURL = "https://cards.test"
    configureCards(&cards)
    self.cards = cards
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.dataDirectory = self.directory
    configuration.threads = 2
    serverSettings(&configuration)
    (server, port) = try await Self.start(configuration, accounts, cards, modules, extra)
  }

  private static func start(
    _ configuration: ServerConfiguration, _ accounts: Accounts.Configuration,
    _ cards: Cards.Configuration, _ modules: [CardDomainModule], _ extra: [ServerExtension]
  ) async throws -> (CardAtlasServer, UInt16) {
    var logger = Logger(label: "accounts-test")
    logger.logLevel = .warning
    let server = try CardAtlasServer(
      configuration: configuration,
      extensions: [.accountsAndCards(accounts: accounts, cards: cards, modules: modules)] + extra,
      logger: logger)
    return (server, UInt16(try await server.start()))
  }

  func connect(from source: String? = nil) throws -> RESPConnection {
    try RESPConnection(port: port, source: source)
  }

  /// Stops the server and starts a new one over the same store.
  func restart() async throws {
    await server.stop()
    var configuration = server.configuration
    configuration.port = 0
    (server, port) = try await Self.start(configuration, accounts, cards, modules, extra)
  }

  func stop() async {
    await server.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

extension AccountServer {
  /// A new account, signed in on a new connection; returns the connection and the account's id
  /// and username.
  func signedIn(_ email: String) throws -> (RESPConnection, id: Int, username: String) {
    let c = try connect()
    let (id, username) = try c.signUp(email)
    return (c, id, username)
  }
}
