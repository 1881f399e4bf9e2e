import Accounts
import CardAtlasApp
import Cards
import Foundation
import Logging
import RedisTestSupport
import Server

/// The daemon as `serve` composes it (`Daemon`: the whole domain, RESP, and HTTP when asked),
/// in this process over a store in a temporary directory (or one given): the one in-process
/// server of the wire tests.
///
/// Its scrypt cost is lowered (2^10) and sign-ups per address are unlimited, so a test can
/// make many accounts; the tests of those limits set them back. Share URLs start with
/// `publicURL`.
public final class TestDaemon {
  public static let publicURL = "https://cards.test"
  public private(set) var daemon: Daemon
  /// RESP's port.
  public private(set) var port: UInt16
  /// HTTP's port; 0 without HTTP.
  public private(set) var httpPort: Int
  public let directory: String
  private let configuration: Domain.Configuration
  private let http: Daemon.HTTP?

  public init(
    accounts configureAccounts: (inout Accounts.Configuration) -> Void = { _ in },
    cards configureCards: (inout Cards.Configuration) -> Void = { _ in },
    domain configureDomain: (inout Domain.Configuration) -> Void = { _ in },
    server configureServer: (inout ServerConfiguration) -> Void = { _ in },
    http: Daemon.HTTP? = nil,
    directory: String? = nil
  ) async throws {
    self.directory =
      directory
      ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-test-\(UUID().uuidString)").path
    var configuration = Domain.Configuration()
    configuration.accounts.hasher = PasswordHasher(costLog2: 10)
    // Tests make many accounts from one address; the limit has tests of its own.
    configuration.accounts.signUpsPerAddress = 0
    configuration.cards.publicURL = Self.publicURL
    configureAccounts(&configuration.accounts)
    configureCards(&configuration.cards)
    configureDomain(&configuration)
    self.configuration = configuration
    self.http = http
    var server = ServerConfiguration()
    server.port = 0
    server.dataDirectory = self.directory
    server.threads = 2
    configureServer(&server)
    (daemon, port, httpPort) = try await Self.start(server, configuration, http)
  }

  private static func start(
    _ server: ServerConfiguration, _ configuration: Domain.Configuration, _ http: Daemon.HTTP?
  ) async throws -> (Daemon, UInt16, Int) {
    var logger = Logger(label: "cardatlas-test")
    logger.logLevel = .warning
    let daemon = try Daemon(server: server, domain: configuration, http: http, logger: logger)
    let ports = try await daemon.start()
    return (daemon, UInt16(ports.resp), ports.http ?? 0)
  }

  public func connect(from source: String? = nil) throws -> RESPConnection {
    try RESPConnection(port: port, source: source)
  }

  /// A new account, signed in on a new connection; returns the connection and the account's id
  /// and username.
  public func signedIn(_ email: String) throws -> (RESPConnection, id: Int, username: String) {
    let c = try connect()
    let (id, username) = try c.signUp(email)
    return (c, id, username)
  }

  /// Stops the daemon and starts a new one over the same store, on new ports.
  public func restart() async throws {
    await daemon.stop()
    var server = daemon.resp.configuration
    server.port = 0
    var http = http
    http?.port = 0
    (daemon, port, httpPort) = try await Self.start(server, configuration, http)
  }

  /// Stops the daemon and removes its store.
  public func stop() async {
    await daemon.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}
