import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Testing

/// A throwaway database on the test PostgreSQL (`scripts/test-postgres.sh`, whose URL `make test`
/// puts in `CARDATLAS_POSTGRES_URL`), dropped by `drop()`.
public struct TestDatabase {
  public static let logger: Logger = {
    var logger = Logger(label: "cardatlas-test")
    logger.logLevel = .warning
    return logger
  }()

  /// The server's URL, or nil (the tests then skip: `make test` always sets it).
  public static let server = serverURL.flatMap { try? PostgresLocation(url: $0) }

  public let location: PostgresLocation

  /// This database's URL, as `serve --store` takes it: the server's with this database's name.
  public var url: String {
    var components = URLComponents(string: Self.serverURL ?? "")
    components?.path = "/" + location.database
    return components?.string ?? ""
  }

  private static let serverURL = ProcessInfo.processInfo.environment["CARDATLAS_POSTGRES_URL"]

  public init(location: PostgresLocation) { self.location = location }

  public static func make() async throws -> TestDatabase {
    let server = try #require(server, "CARDATLAS_POSTGRES_URL is not set")
    let name =
      "cardatlas_t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    try await admin(server) { connection in
      try await connection.query(
        PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) STRATEGY FILE_COPY"), logger: logger)
    }
    return TestDatabase(location: server.with(database: name))
  }

  public func drop() async {
    try? await Self.admin(Self.server!) { connection in
      try await connection.query(
        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)"),
        logger: Self.logger)
    }
  }

  /// Runs `body` on a connection of its own to this database.
  public func connect<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    try await Self.admin(location, body)
  }

  /// Runs `body` on a connection to the server's own database (statements about this one).
  public func connectBeside<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    try await Self.admin(try #require(Self.server), body)
  }

  private static func admin<T>(
    _ location: PostgresLocation, _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    let connection = try await PostgresConnector(location: location, logger: logger).primary()
    do {
      let result = try await body(connection)
      try await connection.close()
      return result
    } catch {
      try? await connection.close()
      throw error
    }
  }
}
