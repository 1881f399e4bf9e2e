import DaemonTestSupport
import Foundation
import Pins
import RESP
import RedisTestSupport
import Testing
import Venues

/// One account making pins and venues as fast as it can (600 in 0.4 s before): each stops at
/// its hourly limit with a clear LIMIT error, and another account is not held up.
@Suite("Pins and venues: creation limits")
struct CreationLimitTests {
  @Test("PIN.ADD stops at the account's pins an hour; another account still adds")
  func pinsPerHour() async throws {
    let server = try await TestDaemon(pins: { $0.addsPerHour = 3 })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    for i in 0..<3 { _ = try ana.pin(2.35 + Double(i) * 0.01, 48.85, 100) }
    let refused = try ana.text("PIN.ADD", "2.40", "48.85", "100", "m", "{}")
    #expect(refused.hasPrefix("LIMIT at most 3 pins an hour, retry after "), "\(refused)")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    _ = try bo.pin(2.35, 48.85, 100)
    await server.stop()
  }

  @Test("VENUE.CREATE stops at the account's venues an hour; another account still creates")
  func venuesPerHour() async throws {
    var configuration = Venues.Configuration()
    configuration.createsPerHour = 2
    let server = try await TestDaemon(domain: { $0.venues = configuration })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let venue = #"{"name":"Café","lon":2.35,"lat":48.85}"#
    for _ in 0..<2 { #expect(try ana.object("VENUE.CREATE", venue)["id"] != nil) }
    let refused = try ana.text("VENUE.CREATE", venue)
    #expect(refused.hasPrefix("LIMIT at most 2 venues an hour, retry after "), "\(refused)")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    #expect(try bo.object("VENUE.CREATE", venue)["id"] != nil)
    await server.stop()
  }
}
