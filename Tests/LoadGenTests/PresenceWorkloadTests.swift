import DaemonTestSupport
import Foundation
import People
import RESP
import Testing

@testable import LoadGen

/// The `presence` workload against a CardAtlas server with the people module in this process:
/// its connections sign in as accounts of their own, so every PRESENCE.SET is answered without
/// an error (signed out, each would answer NOAUTH), and a second run reuses the first's accounts.
@Suite struct PresenceWorkloadTests {
  @Test func signsInAndSetsPresences() async throws {
    let running = try await TestDaemon()
    let address = running.address

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
    await running.stop()
  }
}
