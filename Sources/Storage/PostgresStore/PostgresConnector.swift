import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// Opens connections to the store's servers: to the first host that takes writes (the primary;
/// after a failover, the promoted standby), trying each host of the URL in turn.
public struct PostgresConnector: Sendable {
  public let location: PostgresLocation
  /// Where the store's own tasks run (its writer, its followers, its reads in the background):
  /// nil, Swift's global pool.
  public let executor: (any TaskExecutor)?
  let logger: Logger
  private static let ids = Atomic<Int>(0)

  /// Made once: it reads the system's trust roots.
  private let tls: PostgresConnection.Configuration.TLS?

  public init(
    location: PostgresLocation, executor: (any TaskExecutor)? = nil, logger: Logger
  ) {
    self.location = location
    self.executor = executor
    self.logger = logger
    let context = { try? NIOSSLContext(configuration: .makeClientConfiguration()) }
    switch location.tls {
    case .disable: tls = .disable
    case .prefer: tls = context().map { .prefer($0) }
    case .require: tls = context().map { .require($0) }
    }
  }

  public struct Unavailable: Error, CustomStringConvertible {
    public let description: String
  }

  /// A connection to the primary; throws `Unavailable` when no host is one (all down, or only
  /// standbys while a failover is under way).
  public func primary() async throws -> PostgresConnection {
    var failures: [String] = []
    for host in location.hosts {
      do {
        let connection = try await connect(to: host)
        let inRecovery: Bool?
        do {
          inRecovery = try await QueryDeadline.within(
            .seconds(5), closing: connection, on: executor
          ) {
            [logger] in
            try await connection.query("SELECT pg_is_in_recovery()", logger: logger)
              .collect().first?.decode(Bool.self)
          }
        } catch {
          connection.discard()
          throw error
        }
        if inRecovery == false { return connection }
        failures.append("\(host.name):\(host.port) is a standby")
        try? await connection.close()
      } catch {
        failures.append("\(host.name):\(host.port): \(String(reflecting: error))")
      }
    }
    throw Unavailable(
      description: "no PostgreSQL primary at \(location): \(failures.joined(separator: "; "))")
  }

  private func connect(to host: PostgresLocation.Host) async throws -> PostgresConnection {
    guard let tls else {
      throw Unavailable(description: "TLS could not be set up (sslmode=\(location.tls))")
    }
    var configuration = PostgresConnection.Configuration(
      host: host.name, port: host.port, username: location.username,
      password: location.password, database: location.database, tls: tls)
    configuration.options.connectTimeout = .seconds(5)
    return try await PostgresConnection.connect(
      configuration: configuration, id: Self.ids.add(1, ordering: .relaxed).newValue,
      logger: logger)
  }
}
