import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Every command that changes data, tried by another account, by a signed-out connection, and
/// every keyspace command by an account: refused, and nothing changes.
@Suite("Ownership matrix")
struct OwnershipMatrixTests {
  @Test("refusals leave every card, account and key as it was")
  func matrix() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "adminpw" })
    let admin = try server.connect()
    #expect(try admin.text("AUTH", "adminpw") == "OK")
    #expect(try admin.text("GEOADD", "g", "1", "1", "m") == "1")
    let (ana, anaID, _) = try server.signedIn("ana@x.org")
    _ = try admin.object("ACCOUNT.PRO", "\(anaID)", "1")
    let primary = try ana.object("CARD.CREATE", CardTests.ana)
    let other = try ana.object("CARD.CREATE", #"{"firstName":"Side"}"#)
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let signedOut = try server.connect()

    func snapshot() throws -> [String] {
      try [
        ana.text("CARD.MINE"), ana.text("WHOAMI"), admin.text("DBSIZE"),
        admin.text("ZRANGE", "g", "0", "-1", "WITHSCORES"),
      ]
    }
    let before = try snapshot()
    let ids = ["\(primary["id"] as? Int ?? 0)", "\(other["id"] as? Int ?? 0)"]
    var cardWrites: [[String]] = []
    for id in ids {
      cardWrites += [
        ["CARD.UPDATE", id, #"{"firstName":"Mallory"}"#], ["CARD.DEL", id],
        ["CARD.LOCATE", id, "0", "0"], ["CARD.PRIMARY", id],
      ]
    }
    for command in cardWrites {
      #expect(try bo.text(command).hasPrefix("NOPERM"), "another account: \(command)")
      #expect(try signedOut.text(command).hasPrefix("NOAUTH"), "signed out: \(command)")
    }
    for command in [
      ["CARD.CREATE", #"{"firstName":"X"}"#], ["ACCOUNT.PASSWORD", "secret1", "secret2"],
      ["ACCOUNT.DELETE", "secret1"], ["SESSION.CLOSE", "ALL"],
      ["ACCOUNT.PRO", "\(anaID)", "0"], ["ACCOUNT.ROLE", "\(anaID)", "health"],
    ] {
      #expect(try signedOut.text(command).hasPrefix("NOAUTH"), "signed out: \(command)")
    }
    for command in [
      ["GEOADD", "g", "2", "2", "x"], ["ZREM", "g", "m"], ["DEL", "g"], ["FLUSHALL"], ["FLUSHDB"],
      ["SET", "k", "v"],
      ["GEOSEARCHSTORE", "h", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"],
      ["CONFIG", "SET", "requirepass", "x"], ["BACKUP", "/tmp/x.sqlite"], ["SELECT", "1"],
      ["ACCOUNT.PRO", "\(anaID)", "0"], ["ACCOUNT.ROLE", "\(anaID)", "health"],
    ] {
      #expect(try bo.text(command).hasPrefix("NOPERM"), "an account: \(command)")
    }
    #expect(try snapshot() == before)
    await server.stop()
  }
}
