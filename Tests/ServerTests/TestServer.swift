import Foundation
import Logging
import Server

/// A CardAtlas server in this process on a free loopback port, over a fresh store in a
/// temporary directory that is removed when the server is stopped.
final class TestServer {
  let server: CardAtlasServer
  let port: UInt16
  let directory: String

  init(
    extensions: [ServerExtension] = [], configure: (inout ServerConfiguration) -> Void = { _ in }
  ) async throws {
    directory =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-test-\(UUID().uuidString)").path
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.dataDirectory = directory
    configuration.threads = 2
    configure(&configuration)
    var logger = Logger(label: "cardatlas-test")
    logger.logLevel = .warning
    server = try CardAtlasServer(
      configuration: configuration, extensions: extensions, logger: logger)
    port = UInt16(try await server.start())
  }

  func stop() async {
    await server.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}
