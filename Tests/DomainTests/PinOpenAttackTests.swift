import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// PIN.OPEN believes a position only if the opener could have got there: the attack is a client
/// that reads pins' centres (PIN.GET) and claims each, from wherever it really is.
@Suite("PIN.OPEN under attack")
struct PinOpenAttackTests {
  /// Ana's pins with photos in Paris and in Tokyo, and Bo, who reads them.
  static func pins(_ server: TestDaemon) throws -> (bo: RESPConnection, paris: Int, tokyo: Int) {
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let paris = try ana.pin(2.3522, 48.8566, 100)
    let tokyo = try ana.pin(139.6917, 35.6895, 100)
    for id in [paris, tokyo] { _ = try ana.photo(id, TestPhoto.jpeg()) }
    let (bo, _, _) = try server.signedIn("bo@x.org")
    return (bo, paris, tokyo)
  }

  @Test(
    "a teleporting opener is refused: having opened in Paris, the centre of a pin in Tokyo read with PIN.GET does not open it a second later"
  )
  func teleport() async throws {
    let server = try await TestDaemon(pins: {
      $0.maximumOpenerSpeed = 300
      $0.opensPerHour = 120
    })
    let (bo, paris, tokyo) = try Self.pins(server)
    #expect(try bo.command("PIN.OPEN", "\(paris)", "2.3522", "48.8566").raw.count > 20)
    let centre = try bo.object("PIN.GET", "\(tokyo)")
    let (lon, lat) = (centre["lon"] as? Double ?? 0, centre["lat"] as? Double ?? 0)
    let refused = try bo.text("PIN.OPEN", "\(tokyo)", "\(lon)", "\(lat)")
    #expect(refused.hasPrefix("INVALID location 97"), "\(refused)")
    #expect(refused.hasSuffix(" km from your last PIN.OPEN 0 s ago"))
    // A refused claim moves nothing: Paris again, 500 m on, is believed.
    #expect(try bo.text("PIN.OPEN", "\(paris)", "2.3590", "48.8566").hasPrefix("NOTINRANGE"))
    #expect(try bo.command("PIN.OPEN", "\(paris)", "2.3522", "48.8566").raw.count > 20)
    // Someone else, whose last open was in Tokyo, opens there.
    let (cy, _, _) = try server.signedIn("cy@x.org")
    #expect(try cy.command("PIN.OPEN", "\(tokyo)", "\(lon)", "\(lat)").raw.count > 20)
    await server.stop()
  }

  @Test("PIN.OPEN is limited per account per hour, with a clear LIMIT error")
  func opensPerHour() async throws {
    let server = try await TestDaemon(pins: {
      $0.maximumOpenerSpeed = 300
      $0.opensPerHour = 3
    })
    let (bo, paris, _) = try Self.pins(server)
    for _ in 0..<3 {
      #expect(try bo.command("PIN.OPEN", "\(paris)", "2.3522", "48.8566").raw.count > 20)
    }
    let refused = try bo.text("PIN.OPEN", "\(paris)", "2.3522", "48.8566")
    #expect(refused.hasPrefix("LIMIT at most 3 PIN.OPEN an hour, retry after "), "\(refused)")
    await server.stop()
  }
}
