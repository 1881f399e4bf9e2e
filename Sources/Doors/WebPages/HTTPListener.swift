import Hummingbird
import Listeners
import Logging
import ServiceLifecycle
import Synchronization

/// One HTTP listener on Hummingbird with the daemon's connection limits: the card site's
/// (`WebServer`) or a node's health checks alone (`HealthServer`).
final class HTTPListener: Sendable {
  private let host: String
  private let port: Int
  private let logger: Logger
  private let executor: (any TaskExecutor)?
  private let limits: HTTPLimits
  private let gate: ConnectionGate
  private let running = Mutex<(group: ServiceGroup, task: Task<Void, Never>)?>(nil)

  /// The handlers run on `executor` when one is given, else on Swift's global pool.
  init(
    host: String, port: Int, logger: Logger, limits: HTTPLimits, executor: (any TaskExecutor)?
  ) {
    self.host = host
    self.port = port
    self.logger = logger
    self.executor = executor
    self.limits = limits
    gate = ConnectionGate(limits: limits, logger: logger)
  }

  /// Binds and serves `responder`; returns the bound port (`port` 0 picks one).
  func start(_ responder: some HTTPResponder<PageContext>) async throws -> Int {
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

  /// Stops accepting, lets requests in flight finish, and returns once the server is down.
  func stop() async {
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
