import DaemonTestSupport
import Datasets
import Foundation
import Pins
import RESP
import RESPClient
import Testing

@testable import LoadGen

/// The `pins` workload against a CardAtlas server in this process: the pins it prepares through
/// the protocol are where the points are, with the radii `PinRadii` draws, its PIN.ATs answer
/// without errors, and a second run replaces the first run's pins.
@Suite struct PinWorkloadTests {
  static let points = 300

  @Test func preparesPinsThatPinAtFinds() async throws {
    // Hundreds of pins from each account: more than one may add in an hour by default.
    var pins = Pins.Configuration()
    pins.addsPerHour = 0
    let running = try await TestDaemon(domain: { $0.pins = pins })
    let address = running.address

    let generator = try DatasetGenerator()
    let points = PointSet.realistic(count: Self.points, seed: 7, generator: generator)
    let centre = LonLat(longitude: points.longitudes[5], latitude: points.latitudes[5])
    var configuration = smallConfiguration(
      .pins, target: address, requests: 400, points: Self.points, center: centre,
      baseline: .radius)
    configuration.cardsPerAccount = 100
    for _ in 0..<2 {
      let report = try await LoadBenchmark(configuration: configuration).run()
      #expect(report.errors == 0, "\(report.targets.map(\.errorSamples))")
      let load = try #require(report.targets.first?.load?.cards)
      #expect(load.cards == Self.points && load.command == "PIN.ADD")
      #expect(load.accounts == 3)
      #expect(report.targets[0].requests == 400)
      #expect(report.baselines.first?.requests == 400)
      #expect(report.header.contains("PIN.ADD/s"))
    }
    // Point 5's pin holds its own centre, with point 5's radius; one pin per point in all.
    let radius = PinRadii.draw(count: Self.points, seed: 7)[5]
    let (found, all) = try await withClient(address) { client in
      _ = try await client.send("SESSION.OPEN", CardLoader.email(seed: 7, 0), CardLoader.password)
      let lon = CommandEncoding.number(centre.longitude)
      let lat = CommandEncoding.number(centre.latitude)
      return (
        try await client.send("PIN.AT", lon, lat),
        try await client.send("PIN.SEARCH", "BOUNDS", "-180", "-90", "180", "90")
      )
    }
    guard case .array(let rows) = found else {
      Issue.record("PIN.AT answered \(found)")
      await running.stop()
      return
    }
    let summaries = rows.compactMap { row -> String? in
      guard case .array(let fields) = row, case .bulkString(let b)? = fields.last else {
        return nil
      }
      return String(buffer: b)
    }
    #expect(
      summaries.contains {
        $0.contains(#""caption":"Pin 5""#) && $0.contains(#""radius":\#(Int(radius))"#)
      })
    guard case .array(let every) = all else {
      Issue.record("PIN.SEARCH answered \(all)")
      await running.stop()
      return
    }
    #expect(every.count == Self.points)
    await running.stop()
  }
}
