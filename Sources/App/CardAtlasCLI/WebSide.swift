import Assets
import CardCommands
import Logging
import Synchronization
import Venues
import WebPages

/// `serve --http-port`: the HTTP server, made on the domain the accounts+cards extension
/// started (handed over as it starts), so pages and commands share every instance.
final class WebSide: Sendable {
  let host: String
  let port: Int?
  let map: WebMap.Options
  let limits: HTTPLimits
  let logger: Logger
  private let server = Mutex<WebServer?>(nil)

  init(
    host: String, port: Int?, map: WebMap.Options = .init(), limits: HTTPLimits = .init(),
    logger: Logger
  ) {
    self.host = host
    self.port = port
    self.map = map
    self.limits = limits
    self.logger = logger
  }

  /// The module that receives the domain; none without a port.
  var modules: [CardDomainModule] {
    guard let port else { return [] }
    return [
      .handOver { [self] domain in
        let web = try WebServer(
          accounts: domain.accounts, cards: domain.cards, views: domain.views,
          venues: domain.services.find(Venues.self), assets: domain.services.find(Assets.self),
          wallets: domain.wallets, host: host, port: port, logger: logger, map: map,
          limits: limits)
        server.withLock { $0 = web }
      }
    ]
  }

  /// Starts the HTTP server, if there is one.
  func start() async throws -> WebServer? {
    guard let web = server.withLock({ $0 }) else { return nil }
    try await web.start()
    return web
  }
}
