import Accounts
import Assets
import Cards
import Hummingbird
import Logging
import Venues

/// The HTTP side of the daemon (`serve --http-port`): card pages, vCards, the JSON API, the
/// map page and the account pages on Hummingbird, in the same process as the RESP server and on the same `Accounts`,
/// `Cards`, `CardViews` and `Wallets`.
public final class WebServer: Sendable {
  private let pages: CardPages
  private let account: AccountPages
  private let qrCodes: QRRoutes
  private let previews: PreviewRoutes
  private let site: SiteFiles
  private let uploads: AssetRoutes
  private let api: CardAPI
  private let map: WebMap
  private let health: HealthRoutes
  private let listener: HTTPListener

  /// Compiles the templates, reads the map page's files and draws the site's icons; `start()`
  /// binds. The handlers run on `executor` when one is given, else on Swift's global pool: a
  /// process whose pool other code blocks (a test run's synchronous tests) gives the server
  /// threads of its own. `limits` bound its connections.
  public init(
    accounts: Accounts, cards: Cards, views: CardViews, venues: Venues,
    assets: Assets, wallets: Wallets, host: String, port: Int, logger: Logger,
    map: WebMap.Options = .init(), limits: HTTPLimits = .init(),
    executor: (any TaskExecutor)? = nil, readiness: @escaping @Sendable () -> Readiness = { .ready }
  ) throws {
    self.map = try WebMap(options: map, logger: logger)
    api = CardAPI(accounts: accounts, cards: cards, views: views, wallets: wallets)
    let library = try PageTemplates.library()
    pages = CardPages(accounts: accounts, cards: cards, views: views, library: library)
    account = AccountPages(
      accounts: accounts, cards: cards, wallets: wallets, assets: assets, venues: venues,
      site: AccountSite(library: library, publicURL: cards.configuration.publicURL))
    qrCodes = QRRoutes(pages: pages, venues: venues)
    previews = PreviewRoutes(pages: pages)
    site = try SiteFiles()
    uploads = AssetRoutes(assets: assets, accounts: accounts)
    health = HealthRoutes(readiness: readiness)
    listener = HTTPListener(
      host: host, port: port, logger: logger, limits: limits, executor: executor)
  }

  /// Binds and serves; returns the bound port (`port` 0 picks one).
  @discardableResult
  public func start() async throws -> Int {
    try await listener.start(HeadRequests(router: makeRouter().buildResponder()))
  }

  /// Every route, its middleware first (CORS for the API). `MethodNotAllowed`, added last,
  /// runs only where no route matched.
  private func makeRouter() -> Router<PageContext> {
    let router = Router(context: PageContext.self)
    router.add(middleware: APICORS())
    health.add(to: router)
    api.add(to: router)
    map.add(to: router)
    account.add(to: router)
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
  public func stop() async { await listener.stop() }
}
