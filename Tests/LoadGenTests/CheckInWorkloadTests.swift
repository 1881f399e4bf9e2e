import DaemonTestSupport
import Foundation
import RESP
import Testing
import Venues

@testable import LoadGen

/// The `checkin` workload against a CardAtlas server in this process: the venues it prepares
/// through the protocol check its visitors in without errors, every check-in is in a visitor's
/// history, and a second run replaces the first run's accounts instead of adding to them.
@Suite struct CheckInWorkloadTests {
  @Test func checksVisitorsInAtItsVenues() async throws {
    // 50 venues from one owner: more than an account may create in an hour by default.
    var venues = Venues.Configuration()
    venues.createsPerHour = 0
    let running = try await TestDaemon(domain: { $0.venues = venues })
    let address = running.address
    var configuration = smallConfiguration(
      .checkin, target: address, requests: 400, points: nil, clients: 3, pipeline: 4)
    configuration.venues = 50
    #expect(configuration.points == 0, "no GEO key is loaded for check-ins")
    for _ in 0..<2 {
      let report = try await LoadBenchmark(configuration: configuration).run()
      #expect(report.errors == 0, "\(report.targets.map(\.errorSamples))")
      #expect(report.targets[0].requests == 400)
    }
    // The visitors' histories hold the second run's check-ins: consecutive ones at one venue
    // are one visit, so between 1 and 400 visits, all but one per visitor closed.
    var visits = 0
    for visitor in 0..<3 {
      let history = try await withClient(address) { client in
        _ = try await client.send(
          "SESSION.OPEN", VenueLoader.email(seed: 7, "visitor\(visitor)"), VenueLoader.password)
        return try await client.send("CHECKIN.HISTORY", "COUNT", "1000")
      }
      guard case .array(let items) = history else {
        Issue.record("CHECKIN.HISTORY answered \(history)")
        continue
      }
      visits += items.count
      let open = items.filter {
        if case .bulkString(let b) = $0 { return String(buffer: b).contains(#""isOpen":true"#) }
        return false
      }
      #expect(open.count == 1)
    }
    #expect(visits > 300 && visits <= 400)
    let config = LoadConfiguration(
      target: address, compare: address, parameters: WorkloadParameters(workload: .checkin))
    #expect(throws: LoadGenError.self) { try config.validate() }
    await running.stop()
  }
}
