import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Sign-ins end with the password: each test is an attacker holding a connection or a session
/// token of an account whose owner then changes the password, resets it or deletes the account.
@Suite("Sessions end with the password")
struct SessionRevocationTests {
  static let signedOut =
    "NOAUTH signed out: the password changed, the account was deleted or the session was closed"

  /// Ana's account, with an attacker's connection signed in by AUTH, another by a session
  /// token, and that token; the server has an admin password, so a signed-out connection runs
  /// nothing.
  static func besieged(_ server: TestDaemon) throws -> (
    owner: RESPConnection, byAuth: RESPConnection, byToken: RESPConnection, token: String
  ) {
    let owner = try server.connect()
    _ = try owner.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let byAuth = try server.connect(from: "127.0.0.9")
    #expect(try byAuth.text("AUTH", "ana@x.org", "secret1") == "OK")
    let byToken = try server.connect(from: "127.0.0.9")
    let token = try byToken.text("SESSION.OPEN", "ana@x.org", "secret1", "stolen laptop")
    #expect(try byToken.object("WHOAMI")["email"] as? String == "ana@x.org")
    return (owner, byAuth, byToken, token)
  }

  /// What the attacker's connections and token can do after the owner's move: nothing.
  static func expectLockedOut(
    _ server: TestDaemon, _ c: RESPConnection, _ token: String
  ) throws {
    #expect(
      try c.text("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "5", "km") == signedOut)
    for command in [
      ["CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "5", "km"], ["CARD.GET", "1"],
      ["WHOAMI"],
    ] {
      #expect(try c.text(command).hasPrefix("NOAUTH"), "\(command)")
    }
    #expect(try server.connect().text("SESSION.RESUME", token).hasPrefix("INVALID token"))
  }

  @Test(
    "ACCOUNT.PASSWORD signs out every other connection and closes every other session; the connection that changed it, and its session, go on"
  )
  func passwordChange() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "adminpw" })
    let (owner, byAuth, byToken, stolen) = try Self.besieged(server)
    let mine = try owner.text("SESSION.OPEN", "ana@x.org", "secret1", "phone")
    #expect(try owner.text("ACCOUNT.PASSWORD", "secret1", "secret2") == "OK")
    #expect(try owner.object("WHOAMI")["email"] as? String == "ana@x.org")
    try Self.expectLockedOut(server, byAuth, stolen)
    try Self.expectLockedOut(server, byToken, stolen)
    #expect(try server.connect().object("SESSION.RESUME", mine)["email"] as? String == "ana@x.org")
    // Signing in again takes the new password.
    #expect(try byAuth.text("AUTH", "ana@x.org", "secret1").hasPrefix("WRONGPASS"))
    await server.stop()
  }

  @Test("ACCOUNT.RESET signs out every connection and closes every session")
  func reset() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "adminpw" })
    let (owner, byAuth, byToken, stolen) = try Self.besieged(server)
    #expect(try owner.text("ACCOUNT.RESET.REQUEST", "ana@x.org") == "OK")
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let mail = try #require(try await ResetMailTests.messages(in: outbox).first)
    let token = try #require(ResetMailTests.token(in: mail))
    #expect(try owner.text("ACCOUNT.RESET", token, "secret2") == "OK")
    try Self.expectLockedOut(server, byAuth, stolen)
    try Self.expectLockedOut(server, byToken, stolen)
    await server.stop()
  }

  @Test(
    "ACCOUNT.DELETE signs out every connection: none reads cards, searches or writes afterwards")
  func deletion() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "adminpw" })
    let (owner, byAuth, byToken, stolen) = try Self.besieged(server)
    #expect(try owner.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try owner.text("ACCOUNT.DELETE", "secret1") == "OK")
    try Self.expectLockedOut(server, byAuth, stolen)
    #expect(
      try byToken.text("CARD.CREATE", #"{"firstName":"Ghost"}"#) == Self.signedOut,
      "no write reaches the store for a deleted account")
    #expect(try server.connect().text("AUTH", "adminpw") == "OK")
    await server.stop()
  }

  @Test(
    "SESSION.LIST shows each device (never a token); SESSION.CLOSE <id> ends one, and the connection signed in with it"
  )
  func listAndClose() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "adminpw" })
    let owner = try server.connect()
    _ = try owner.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let phone = try owner.text("SESSION.OPEN", "ana@x.org", "secret1", "phone")
    let laptop = try server.connect()
    let laptopToken = try laptop.text("SESSION.OPEN", "ana@x.org", "secret1", "laptop")
    let text = try owner.text("SESSION.LIST")
    #expect(!text.contains(phone) && !text.contains(laptopToken))
    let sessions = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    #expect(sessions.map { $0["device"] as? String } == ["phone", "laptop"])
    #expect(sessions.map { $0["current"] as? Bool } == [true, false])
    let laptopID = try #require(sessions[1]["id"] as? Int)
    #expect(try owner.text("SESSION.CLOSE", "\(laptopID)") == "1")
    #expect(try laptop.text("WHOAMI") == Self.signedOut)
    #expect(try server.connect().text("SESSION.RESUME", laptopToken).hasPrefix("INVALID token"))
    #expect(try owner.object("WHOAMI")["email"] as? String == "ana@x.org", "the phone goes on")
    // Another account's session id closes nothing.
    let other = try server.connect()
    _ = try other.object("ACCOUNT.CREATE", "bo@x.org", "secret1")
    #expect(try other.text("AUTH", "bo@x.org", "secret1") == "OK")
    let phoneID = try #require(sessions[0]["id"] as? Int)
    #expect(try other.text("SESSION.CLOSE", "\(phoneID)") == "0")
    #expect(try owner.object("WHOAMI")["email"] as? String == "ana@x.org")
    await server.stop()
  }
}
