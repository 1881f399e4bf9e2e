import Accounts
import CardCommands
import Cards
import Foundation
import Logging
import Server

@testable import LoadGen

/// A CardAtlas server in this process with the accounts and cards and `modules`, over a store
/// in a temporary directory, with a cheap password hash: for the workloads that sign in.
struct DomainServer {
  let server: CardAtlasServer
  let address: ServerAddress
  let directory: String

  static func start(
    cards: Cards.Configuration = .init(), modules: [CardDomainModule] = []
  ) async throws -> DomainServer {
    var accounts = Accounts.Configuration()
    accounts.hasher = PasswordHasher(costLog2: 10)
    // Tests make many accounts from one address; the limit has tests of its own.
    accounts.signUpsPerAddress = 0
    var settings = ServerConfiguration()
    settings.port = 0
    settings.threads = 2
    settings.dataDirectory =
      FileManager.default.temporaryDirectory.appendingPathComponent("cardatlas-load-\(UUID())").path
    var logger = Logger(label: "load-test")
    logger.logLevel = .warning
    let server = try CardAtlasServer(
      configuration: settings,
      extensions: [.accountsAndCards(accounts: accounts, cards: cards, modules: modules)],
      logger: logger)
    let port = try await server.start()
    return DomainServer(
      server: server, address: ServerAddress(host: "127.0.0.1", port: port),
      directory: settings.dataDirectory)
  }

  /// Stops the server and removes its store.
  func stop() async {
    await server.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}
