import Cards
import DaemonTestSupport
import Datasets
import Foundation
import RESP
import RESPClient
import Testing

@testable import LoadGen

/// The `cards` workload against a CardAtlas server in this process: the cards it prepares
/// through the protocol are on the map where the points are, its searches answer without
/// errors, and a second run replaces the first run's cards instead of adding to them.
@Suite struct CardWorkloadTests {
  static let points = 300

  func configuration(_ server: ServerAddress, centre: LonLat) -> LoadConfiguration {
    var configuration = smallConfiguration(
      .cards, target: server, requests: 400, points: Self.points, center: centre,
      baseline: .radius)
    configuration.cardsPerAccount = 100
    return configuration
  }

  @Test func preparesCardsThatCardSearchFinds() async throws {
    let running = try await TestDaemon(cards: { $0.proCardLimit = 100 })
    let address = running.address

    let generator = try DatasetGenerator()
    let points = PointSet.realistic(count: Self.points, seed: 7, generator: generator)
    let centre = LonLat(longitude: points.longitudes[5], latitude: points.latitudes[5])
    for _ in 0..<2 {
      let report = try await LoadBenchmark(configuration: configuration(address, centre: centre))
        .run()
      #expect(report.errors == 0, "\(report.targets.map(\.errorSamples))")
      let load = try #require(report.targets.first?.load?.cards)
      #expect(load.cards == Self.points)
      #expect(load.accounts == 3)
      #expect(report.targets[0].requests == 400)
      #expect(report.baselines.first?.requests == 400)
      #expect(report.header.contains("CARD.CREATE/s"))
    }

    // Signed in as one of the accounts: the card at point 5 is where the point is, and the map
    // holds one card per point (the second run replaced the first's).
    let (found, all) = try await withClient(address) { client in
      _ = try await client.send("SESSION.OPEN", CardLoader.email(seed: 7, 0), CardLoader.password)
      let lon = CommandEncoding.number(centre.longitude)
      let lat = CommandEncoding.number(centre.latitude)
      return (
        try await client.send("CARD.SEARCH", "FROMLONLAT", lon, lat, "BYRADIUS", "1", "m"),
        try await client.send("CARD.SEARCH", "FROMLONLAT", lon, lat, "NEAREST", "1000")
      )
    }
    guard case .array(let rows) = found, case .array(let first)? = rows.first,
      case .bulkString(let summary)? = first.last
    else {
      Issue.record("CARD.SEARCH answered \(found)")
      await running.stop()
      return
    }
    #expect(String(buffer: summary).contains(#""firstName":"Card5""#))
    guard case .array(let every) = all else {
      Issue.record("CARD.SEARCH answered \(all)")
      await running.stop()
      return
    }
    #expect(every.count == Self.points)
    await running.stop()
  }
}
