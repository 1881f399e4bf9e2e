import Logging
import Server
import WebPages

/// `serve`: the store, the domain built on it once, and its two doors on the same instances:
/// RESP, and HTTP when it has a port. Tests run the same daemon in their process.
public final class Daemon: Sendable {
  /// The HTTP door's settings (`serve --http-port` and its companions).
  public struct HTTP: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var map = WebMap.Options()
    public var limits = HTTPLimits()
    /// Where the handlers run; nil: Swift's global pool.
    public var executor: (any TaskExecutor)?

    public init() {}
  }

  public let domain: Domain
  public let resp: CardAtlasServer
  public let web: WebServer?

  /// Opens the store with every service's tables, builds the domain on it, then the doors;
  /// `start()` binds them.
  public init(
    server: ServerConfiguration, domain configuration: Domain.Configuration, http: HTTP?,
    logger: Logger
  ) throws {
    let foundation = try ServerFoundation(
      configuration: server, migrations: Domain.migrations, logger: logger)
    do {
      let domain = try Domain(
        store: foundation.store, notifier: foundation.notifier,
        configuration: Self.linkingResets(configuration, http))
      self.domain = domain
      if domain.cards.loadedFromHeld { logger.info("cards: read from the held file, cards.held") }
      resp = try CardAtlasServer(
        configuration: server, foundation: foundation, parts: [domain.commands], logger: logger)
      web = try http.map { try Self.webServer(domain, $0, logger: logger) }
    } catch {
      foundation.store.close()
      throw error
    }
  }

  /// A node over the PostgreSQL database at `url` (`PostgresNode`): the domain loaded from it
  /// and following every node's writes, behind the same doors. Mail the accounts cannot send
  /// goes to `outbox` (a directory).
  public init(
    node url: String, server: ServerConfiguration, domain configuration: Domain.Configuration,
    http: HTTP?, outbox: String, logger: Logger
  ) async throws {
    let node = try await PostgresNode.open(
      server: server, url: url, domain: Self.linkingResets(configuration, http), outbox: outbox,
      logger: logger)
    domain = node.domain
    resp = node.server
    do {
      web = try http.map { try Self.webServer(node.domain, $0, logger: logger) }
    } catch {
      await node.server.stop()
      throw error
    }
  }

  /// With the web side, reset mails link to its page (`/account/reset`).
  static func linkingResets(_ configuration: Domain.Configuration, _ http: HTTP?)
    -> Domain.Configuration
  {
    var configuration = configuration
    if http != nil, configuration.accounts.resetPage == nil {
      configuration.accounts.resetPage = configuration.cards.publicURL + "/account/reset"
    }
    return configuration
  }

  /// The HTTP door over `domain`; `readiness` answers `GET /readyz`.
  public static func webServer(
    _ domain: Domain, _ http: HTTP, logger: Logger,
    readiness: @escaping @Sendable () -> Readiness = { .ready }
  ) throws -> WebServer {
    try WebServer(
      accounts: domain.accounts, cards: domain.cards, views: domain.views,
      venues: domain.venues, assets: domain.assets, wallets: domain.wallets,
      host: http.host, port: http.port, logger: logger, map: http.map, limits: http.limits,
      executor: http.executor, readiness: readiness)
  }

  /// Binds both doors; returns their ports (`port` 0 picks one). If HTTP cannot bind, RESP
  /// stops and the store is closed before the error is thrown.
  @discardableResult
  public func start() async throws -> (resp: Int, http: Int?) {
    let respPort = try await resp.start()
    guard let web else { return (respPort, nil) }
    do {
      return (respPort, try await web.start())
    } catch {
      await resp.stop()
      throw error
    }
  }

  /// Stops HTTP, then RESP, whose last act closes the store.
  public func stop() async {
    await web?.stop()
    await resp.stop()
  }
}
