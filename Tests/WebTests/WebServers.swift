import Accounts
import AssetCommands
import Assets
import CardCommands
import Cards
import Foundation
import Logging
import RESP
import RedisTestSupport
import Server
import Synchronization
import VenueCommands
import Venues
import WebPages

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The daemon as `serve --http-port` runs it, in this process: RESP and HTTP on ports of their
/// own, over one store in a temporary directory, the pages on the domain the commands use.
final class WebServers {
  static let publicURL = "https://cards.test"
  let resp: CardAtlasServer
  let web: WebServer
  let respPort: UInt16
  let httpPort: Int
  let directory: String

  /// With the venues and the assets (`assets` sets their bounds), the map page's `map`, and the
  /// HTTP side's connection `limits`.
  init(
    assets: Assets.Configuration = .init(), map: WebMap.Options = .init(),
    limits: HTTPLimits = .init(), cards configure: (inout Cards.Configuration) -> Void = { _ in }
  ) async throws {
    directory =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-web-\(UUID().uuidString)").path
    var accounts = Accounts.Configuration()
    accounts.hasher = PasswordHasher(costLog2: 10)
    // Tests make many accounts from one address; the limit has tests of its own.
    accounts.signUpsPerAddress = 0
    var cards = Cards.Configuration()
    cards.publicURL = Self.publicURL
    configure(&cards)
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.dataDirectory = directory
    configuration.threads = 2
    var logger = Logger(label: "web-test")
    logger.logLevel = .warning
    let made = Made()
    let quiet = logger
    resp = try CardAtlasServer(
      configuration: configuration,
      extensions: [
        .accountsAndCards(
          accounts: accounts, cards: cards,
          modules: [
            .venues(), .assets(assets),
            .handOver { domain in
              let web = try WebServer(
                accounts: domain.accounts, cards: domain.cards, views: domain.views,
                venues: domain.services.find(Venues.self),
                assets: domain.services.find(Assets.self), wallets: domain.wallets,
                host: "127.0.0.1", port: 0, logger: quiet, map: map, limits: limits,
                executor: DedicatedThreads.shared)
              made.server.withLock { $0 = web }
            },
          ])
      ],
      logger: logger)
    respPort = UInt16(try await resp.start())
    web = made.server.withLock { $0 }!
    httpPort = try await web.start()
  }

  /// The web server the domain's hand-over made.
  private final class Made: Sendable {
    let server = Mutex<WebServer?>(nil)
  }

  func stop() async {
    await web.stop()
    await resp.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }

  func connect() throws -> RESPConnection { try RESPConnection(port: respPort) }

  /// A new account signed in on a new connection: the connection, its id and username.
  func signedIn(_ email: String) throws -> (RESPConnection, id: Int, username: String) {
    let c = try connect()
    let (id, username) = try c.signUp(email)
    return (c, id, username)
  }

  /// An HTTP response as it arrived.
  struct Fetched {
    let status: Int
    let response: HTTPURLResponse
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { response.value(forHTTPHeaderField: name) }
  }

  /// GET `path` on the HTTP port, over a real socket.
  func get(_ path: String, headers: [String: String] = [:]) async throws -> Fetched {
    try await fetch("GET", path, headers: headers)
  }

  /// A request of any method, with a body, over a real socket.
  func fetch(
    _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil
  )
    async throws -> Fetched
  {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(httpPort)\(path)")!)
    request.httpMethod = method
    request.httpBody = body.map { Data($0) }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let (body, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else {
      throw RESPConnection.Failed(description: "not an HTTP response")
    }
    return Fetched(status: http.statusCode, response: http, body: body)
  }
}
