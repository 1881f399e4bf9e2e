import Hummingbird
import Logging

/// HTTP for a node that serves no pages yet (over PostgreSQL): `/healthz` and `/readyz` alone,
/// bound before the node loads, so a probe sees it loading.
public final class HealthServer: Sendable {
  private let health: HealthRoutes
  private let listener: HTTPListener

  public init(
    host: String, port: Int, logger: Logger, limits: HTTPLimits = .init(),
    readiness: @escaping @Sendable () -> Readiness
  ) {
    health = HealthRoutes(readiness: readiness)
    listener = HTTPListener(host: host, port: port, logger: logger, limits: limits, executor: nil)
  }

  /// Binds and serves; returns the bound port (`port` 0 picks one).
  @discardableResult
  public func start() async throws -> Int {
    let router = Router(context: PageContext.self)
    health.add(to: router)
    router.add(middleware: MethodNotAllowed(routes: router.routes))
    return try await listener.start(HeadRequests(router: router.buildResponder()))
  }

  public func stop() async { await listener.stop() }
}
