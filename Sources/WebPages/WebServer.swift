import Accounts
import Assets
import Cards
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Venues

/// The HTTP side of the daemon (`serve --http-port`): card pages and vCards on Hummingbird, in
/// the same process as the RESP server and on the same `Accounts`, `Cards` and `CardViews`.
public final class WebServer: Sendable {
  private let pages: CardPages
  private let qrCodes: QRRoutes
  private let uploads: AssetRoutes?
  private let host: String
  private let port: Int
  private let logger: Logger
  private let running = Mutex<(group: ServiceGroup, task: Task<Void, Never>)?>(nil)

  /// Compiles the templates; `start()` binds. Without `venues` or `assets` (modules not
  /// started), their routes answer 404.
  public init(
    accounts: Accounts, cards: Cards, views: CardViews, venues: Venues? = nil,
    assets: Assets? = nil, host: String, port: Int, logger: Logger
  ) throws {
    pages = CardPages(
      accounts: accounts, cards: cards, views: views, library: try PageTemplates.library())
    qrCodes = QRRoutes(pages: pages, venues: venues)
    uploads = assets.map { AssetRoutes(assets: $0, accounts: accounts) }
    self.host = host
    self.port = port
    self.logger = logger
  }

  /// Binds and serves; returns the bound port (`port` 0 picks one).
  @discardableResult
  public func start() async throws -> Int {
    let router = Router(context: PageContext.self)
    pages.add(to: router)
    qrCodes.add(to: router)
    uploads?.add(to: router)
    let (bound, boundSink) = AsyncStream<Result<Int, any Error>>.makeStream()
    let app = Application(
      router: router,
      configuration: .init(address: .hostname(host, port: port), serverName: "CardAtlas"),
      onServerRunning: { [port] channel in
        boundSink.yield(.success(channel.localAddress?.port ?? port))
      },
      logger: logger)
    let group = ServiceGroup(
      configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
    let task = Task { [logger] in
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
