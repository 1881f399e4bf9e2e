import Foundation
import RESP
import RedisTestSupport
import Testing

/// The cards' held file across real stops of the executable: a clean stop (SIGTERM) keeps it,
/// the next start takes it, and a `kill -9` after writes leaves none, so the start after it
/// reads every acknowledged write from the rows.
@Suite struct CardsHeldCrashTests {
  static let card =
    #"{"firstName":"Ana","company":"Before","showOnMap":true,"location":{"lon":9.52,"lat":47.14}}"#

  @Test func aCrashAfterAStartFromTheHeldFileLosesNoAcknowledgedWrite() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-held-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let held = directory + "/cards.held"
    do {
      let server = try CardAtlasProcess(directory: directory)
      let c = try RESPConnection(port: server.port)
      let account = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
      _ = try c.command("ACCOUNT.PRO", "\(account["id"] as? Int ?? 0)", "1")
      #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try c.object("CARD.CREATE", Self.card)["id"] as? Int == 1)
      server.signal(SIGTERM)
      server.waitUntilExit()
      #expect(FileManager.default.fileExists(atPath: held))
    }
    do {
      let server = try CardAtlasProcess(directory: directory)
      #expect(!FileManager.default.fileExists(atPath: held), "taken by the start")
      let c = try RESPConnection(port: server.port)
      #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try c.object("CARD.GET", "1")["company"] as? String == "Before")
      _ = try c.object("CARD.UPDATE", "1", #"{"company":"After"}"#)
      #expect(
        try c.object(
          "CARD.CREATE",
          #"{"firstName":"Two","showOnMap":true,"location":{"lon":9.53,"lat":47.15}}"#)["id"]
          as? Int == 2)
      server.signal(SIGKILL)
      server.waitUntilExit()
      #expect(!FileManager.default.fileExists(atPath: held))
    }
    let server = try CardAtlasProcess(directory: directory)
    let c = try RESPConnection(port: server.port)
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try c.object("CARD.GET", "1")["company"] as? String == "After")
    #expect(try c.object("CARD.GET", "2")["firstName"] as? String == "Two")
    let hits = try c.command("CARD.SEARCH", "FROMLONLAT", "9.52", "47.14", "BYRADIUS", "10", "km")
    guard case .array(let found) = hits.value else {
      Issue.record("CARD.SEARCH: \(hits.text)")
      return
    }
    #expect(found.count == 2)
  }
}
