import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Who may fence: the admin's commands, refused to an account and, with a password set, to a
/// connection not signed in; a fence's channel is not an account's to hear.
@Suite("Fences: who may")
struct FenceAccessTests {
  @Test(
    "an account gets NOPERM for FENCE.SET, GET, LIST and DEL and cannot hear a fence's channel; with --requirepass a connection not signed in gets NOAUTH; the admin's fence stays as set"
  )
  func onlyTheAdminFences() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "admin-secret" })
    let admin = try server.connect()
    #expect(try admin.text("AUTH", "admin-secret") == "OK")
    let circle = ["KEY", "fleet", "CIRCLE", "2.35", "48.85", "1", "km"]
    #expect(try admin.text(["FENCE.SET", "paris"] + circle) == "OK")
    let (ana, _, _) = try server.signedIn("ana@x.org")
    for command in [
      ["FENCE.SET", "mine"] + circle, ["FENCE.GET", "paris"], ["FENCE.LIST"],
      ["FENCE.DEL", "paris"],
    ] {
      #expect(try ana.text(command).hasPrefix("NOPERM"), "\(command[0])")
    }
    #expect(try ana.text("SUBSCRIBE", "fence:paris") == NotificationTests.noPerm)
    #expect(try ana.text("PSUBSCRIBE", "fence:*") == NotificationTests.noPerm)
    let stranger = try server.connect()
    for command in [["FENCE.SET", "x"] + circle, ["FENCE.LIST"], ["FENCE.DEL", "paris"]] {
      #expect(try stranger.text(command).hasPrefix("NOAUTH"), "\(command[0])")
    }
    #expect(try admin.command("FENCE.LIST").text == "*1\r\n$5\r\nparis\r\n")
    await server.stop()
  }

  @Test(
    "an account gets NOPERM for every HOOK command, and a connection not signed in NOAUTH: no hook's secret, dead letters or URL reach them"
  )
  func onlyTheAdminHooks() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "admin-secret" })
    let admin = try server.connect()
    #expect(try admin.text("AUTH", "admin-secret") == "OK")
    let secret = try admin.text("HOOK.SET", "crm", "https://93.184.215.14/hook")
    #expect(secret.hasPrefix("whsec_"))
    let hookCommands = [
      ["HOOK.SET", "mine", "https://93.184.215.14/x"], ["HOOK.GET", "crm"], ["HOOK.LIST"],
      ["HOOK.DEL", "crm"], ["HOOK.DEAD", "crm"], ["HOOK.REPLAY", "crm"],
    ]
    let (ana, _, _) = try server.signedIn("ana@x.org")
    for command in hookCommands {
      let reply = try ana.text(command)
      #expect(reply.hasPrefix("NOPERM") && !reply.contains(secret), "\(command[0])")
    }
    let stranger = try server.connect()
    for command in hookCommands {
      #expect(try stranger.text(command).hasPrefix("NOAUTH"), "\(command[0])")
    }
    #expect(try admin.object("HOOK.GET", "crm")["secret"] as? String == secret)
    await server.stop()
  }
}
