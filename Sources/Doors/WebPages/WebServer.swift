import Accounts
import Assets
import Cards
import Hummingbird
import Listeners
import Logging
import ServiceLifecycle
import Synchronization
import Venues

/// The HTTP side of the daemon (`serve --http-port`): card pages, vCards, the JSON API and the
/// map page on Hummingbird, in the same process as the RESP server and on the same `Accounts`,
/// `Cards`, `CardViews` and `Wallets`.
public final class WebServer: Sendable {
  private let pages: CardPages
  private let qrCodes: QRRoutes
  private let previews: PreviewRoutes
  private let site: SiteFiles
  private let uploads: AssetRoutes
  private let api: CardAPI
  private let map: WebMap
  private let host: String
  private let port: Int
  private let logger: Logger
  private let executor: (any TaskExecutor)?
  private let limits: HTTPLimits
  private let gate: ConnectionGate
  private let running = Mutex<(group: ServiceGroup, task: Task<Void, Never>)?>(nil)

  /// Compiles the templates, reads the map page's files and draws the site's icons; `start()`
  /// binds. The handlers run on `executor` when one is given, else on Swift's global pool: a
  /// process whose pool other code blocks (a test run's synchronous tests) gives the server
  /// threads of its own. `limits` bound its connections.
  public init(
    accounts: Accounts, cards: Cards, views: CardViews, venues: Venues,
    assets: Assets, wallets: Wallets, host: String, port: Int, logger: Logger,
    map: WebMap.Options = .init(), limits: HTTPLimits = .init(),
    executor: (any TaskExecutor)? = nil
  ) throws {
    self.map = try WebMap(options: map, logger: logger)
    api = CardAPI(accounts: accounts, cards: cards, views: views, wallets: wallets)
    pages = CardPages(
      accounts: accounts, cards: cards, views: views, library: try PageTemplates.library())
    qrCodes = QRRoutes(pages: pages, venues: venues)
    previews = PreviewRoutes(pages: pages)
    site = try SiteFiles()
    uploads = AssetRoutes(assets: assets, accounts: accounts)
    self.host = host
    self.port = port
    self.logger = logger
    self.executor = executor
    self.limits = limits
    gate = ConnectionGate(limits: limits, logger: logger)
  }

  /// Binds and serves; returns the bound port (`port` 0 picks one).
  @discardableResult
  public func start() async throws -> Int {
    let responder = HeadRequests(router: makeRouter().buildResponder())
    let (bound, boundSink) = AsyncStream<Result<Int, any Error>>.makeStream()
    let app = Application(
      responder: responder,
      server: LimitedHTTP1Channel.builder(limits: limits, gate: gate),
      configuration: .init(address: .hostname(host, port: port), serverName: "CardAtlas"),
      onServerRunning: { [port, gate, limits, logger] channel in
        // Measured once bound: the listener and the event loops hold descriptors too. A budget
        // below the per-address cap lets one client take it all: worth a warning.
        let budget = gate.measureBudget()
        logger.log(
          level: (budget ?? .max) < limits.maxConnectionsPerAddress ? .warning : .info,
          "HTTP connection limits",
          metadata: [
            "max": "\(limits.maxConnections)", "per-address": "\(limits.maxConnectionsPerAddress)",
            "descriptor-budget": "\(budget.map(String.init) ?? "unbounded")",
          ])
        // Hummingbird's listener, like RESP's, must wait rather than spin at the descriptor
        // limit; first in its pipeline, before NIO's back-off handler swallows the error.
        try? await channel.eventLoop.submit {
          try channel.pipeline.syncOperations.addHandler(AcceptPause(), position: .first)
        }.get()
        boundSink.yield(.success(channel.localAddress?.port ?? port))
      },
      logger: logger)
    let group = ServiceGroup(
      configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
    // Child tasks inherit the preference: every connection's and request's task runs there.
    let task = Task(executorPreference: executor) { [logger] in
      do { try await group.run() } catch {
        logger.error("the HTTP server stopped", metadata: ["error": "\(error)"])
        boundSink.yield(.failure(error))
      }
      boundSink.finish()
    }
    running.withLock { $0 = (group, task) }
    for await result in bound {
      let port = try result.get()
      logger.info("serving HTTP", metadata: ["host": "\(host)", "port": "\(port)"])
      return port
    }
    throw CancellationError()
  }

  /// Every route, its middleware first (CORS for the API). `MethodNotAllowed`, added last,
  /// runs only where no route matched.
  private func makeRouter() -> Router<PageContext> {
    let router = Router(context: PageContext.self)
    router.add(middleware: APICORS())
    api.add(to: router)
    map.add(to: router)
    pages.add(to: router)
    qrCodes.add(to: router)
    previews.add(to: router)
    site.add(to: router)
    uploads.add(to: router)
    router.add(middleware: MethodNotAllowed(routes: router.routes))
    return router
  }

  /// The routes registered, as `METHOD /path/{parameter}`: what the OpenAPI document must
  /// describe (`APIDocumentTests`).
  public var routes: [String] { makeRouter().routes.map { "\($0.method) \($0.path)" } }

  /// Stops accepting, lets requests in flight finish, and returns once the server is down.
  public func stop() async {
    guard
      let (group, task) = running.withLock({ r in
        defer { r = nil }
        return r
      })
    else {
      return
    }
    await group.triggerGracefulShutdown()
    await task.value
  }
}
