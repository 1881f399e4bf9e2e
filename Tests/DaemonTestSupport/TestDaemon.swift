import Accounts
import CardAtlasApp
import Cards
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import RedisTestSupport
import Server

/// The daemon as `serve` composes it (`Daemon`: the whole domain, RESP, and HTTP when asked),
/// in this process over a store in a temporary directory (or one given): the one in-process
/// server of the wire tests.
///
/// Its scrypt cost is lowered (2^10) and sign-ups per address are unlimited, so a test can
/// make many accounts; the tests of those limits set them back. Share URLs start with
/// `publicURL`.
///
/// With `CARDATLAS_TEST_STORE=postgresql` in the environment (and `CARDATLAS_POSTGRES_URL`), each
/// daemon is a node over a throwaway database of its own on the test PostgreSQL instead: `make
/// test` runs the domain's suites so too, against both stores.
public final class TestDaemon {
  /// Whether this run's daemons are nodes over PostgreSQL.
  public static let overPostgres =
    ProcessInfo.processInfo.environment["CARDATLAS_TEST_STORE"] == "postgresql"
  public static let publicURL = "https://cards.test"
  public private(set) var daemon: Daemon
  /// RESP's port.
  public private(set) var port: UInt16
  /// HTTP's port; 0 without HTTP.
  public private(set) var httpPort: Int
  public let directory: String
  private let configuration: Domain.Configuration
  private let http: Daemon.HTTP?
  /// The daemon's database when it is a node over PostgreSQL.
  public let database: TestDatabase?

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
    database = Self.overPostgres ? try await TestDatabase.make() : nil
    (daemon, port, httpPort) = try await Self.start(server, configuration, http, database)
  }

  private static func start(
    _ server: ServerConfiguration, _ configuration: Domain.Configuration, _ http: Daemon.HTTP?,
    _ database: TestDatabase?
  ) async throws -> (Daemon, UInt16, Int) {
    var logger = Logger(label: "cardatlas-test")
    logger.logLevel = .warning
    let daemon =
      if let database {
        try await Daemon(
          node: database.url, server: server, domain: configuration, http: http,
          outbox: server.dataDirectory + "/outbox", logger: logger)
      } else {
        try Daemon(server: server, domain: configuration, http: http, logger: logger)
      }
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

  /// Stops the daemon cleanly, runs `whileStopped`, and starts a new one over the same store, on new
  /// ports.
  public func restart(whileStopped: () async throws -> Void = {}) async throws {
    await daemon.stop()
    try await whileStopped()
    var server = daemon.resp.configuration
    server.port = 0
    var http = http
    http?.port = 0
    (daemon, port, httpPort) = try await Self.start(server, configuration, http, database)
  }

  /// One single-column query's rows, one a line, from the daemon's store (the tables have the
  /// same names and columns in both stores): what a test checks was stored, or was not.
  public func sql(_ query: String) async throws -> String {
    guard let database else {
      let script = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print("\\n".join(str(row[0]) for row in db.execute(sys.argv[2])), end="")
        """
      return try RedisProcess.run(
        "python3", ["-c", script, directory + "/cardatlas.sqlite", query]
      ).0
    }
    return try await database.connect { connection in
      let rows = try await connection.query(
        PostgresQuery(unsafeSQL: "SELECT q.x::text FROM (\(query)) AS q(x)"),
        logger: TestDatabase.logger
      ).collect()
      return try rows.map { try $0.decode(String.self) }.joined(separator: "\n")
    }
  }

  /// The names of the uploaded files of one kind ("pins", "documents", "assets"), sorted: on
  /// disk under the embedded store's `media/`, in `media_files` in PostgreSQL. With `count`,
  /// waits (up to 10 s) until there are that many: PostgreSQL removes replaced and deleted
  /// bytes after the commit, in the background.
  public func mediaFiles(_ kind: String, reaching count: Int? = nil) async throws -> [String] {
    var names = try await mediaFiles(kind)
    for _ in 0..<200 where count != nil && names.count != count {
      try await Task.sleep(for: .milliseconds(50))
      names = try await mediaFiles(kind)
    }
    return names
  }

  private func mediaFiles(_ kind: String) async throws -> [String] {
    guard database != nil else {
      let names = try? FileManager.default.contentsOfDirectory(atPath: directory + "/media/" + kind)
      return (names ?? []).sorted()
    }
    let stored = ["pins": "pin-photos"][kind] ?? kind
    let names = try await sql("SELECT name FROM media_files WHERE kind = '\(stored)'")
    return names.split(separator: "\n").map(String.init).sorted()
  }

  /// Stops the daemon and removes its store.
  public func stop() async {
    await daemon.stop()
    await database?.drop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}
