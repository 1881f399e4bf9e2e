import Accounts
import CardCommands
import Foundation
import Logging
import People
import PeopleCommands
import RESP
import Server
import Testing

@testable import LoadGen

/// The `presence` workload against a CardAtlas server with the people module in this process:
/// its connections sign in as accounts of their own, so every PRESENCE.SET is answered without
/// an error (signed out, each would answer NOAUTH), and a second run reuses the first's accounts.
@Suite struct PresenceWorkloadTests {
  @Test func signsInAndSetsPresences() async throws {
    var accounts = Accounts.Configuration()
    accounts.hasher = PasswordHasher(costLog2: 10)
    var settings = ServerConfiguration()
    settings.port = 0
    settings.threads = 2
    settings.dataDirectory =
      FileManager.default.temporaryDirectory.appendingPathComponent("cardatlas-load-\(UUID())").path
    var logger = Logger(label: "load-test")
    logger.logLevel = .warning
    let server = try CardAtlasServer(
      configuration: settings,
      extensions: [.accountsAndCards(accounts: accounts, modules: [People.module()])],
      logger: logger)
    let address = ServerAddress(host: "127.0.0.1", port: try await server.start())
    defer { try? FileManager.default.removeItem(atPath: settings.dataDirectory) }

    for _ in 0..<2 {
      let report = try await LoadBenchmark(
        configuration: smallConfiguration(.presence, target: address, requests: 2000, points: 0)
      ).run()
      #expect(report.errors == 0, "\(report.targets.map(\.errorSamples))")
      let result = try #require(report.targets.first)
      #expect(result.requests == 2000 && result.latency.totalCount == 2000)
      expectMonotone(result.summary)
      #expect(report.header.contains("PRESENCE.SET <lon> <lat>"))
    }
    await server.stop()
  }
}
