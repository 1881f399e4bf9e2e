import Foundation
import RedisTestSupport
import Testing

/// `cardatlas import --server`: the server reached, signed in to and asked for CARD.IMPORT
/// before any row, each failure one `Error:` line and the exit status the help gives.
@Suite("Import into a server: checked before the first row")
struct ImportServerTests {
  static let rows = """
    externalId,ownerEmail,firstName,city,country
    s1,sam@example.com,Sam,Vaduz,Liechtenstein
    s2,tia@example.com,Tia,Paris,France

    """

  @Test(
    "unreachable, no password, a wrong password, not a CardAtlas daemon: exit 3 with one message, nothing written; bad usage: exit 2"
  )
  func refusedBeforeAnyRow() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let input = try scratch.write("staff.csv", Self.rows)
    let daemon = try Daemon(data: scratch.path("var"), in: scratch)
    defer { daemon.stop() }
    let redis = try RedisProcess()
    defer { redis.stop() }
    let closed = try freePort()
    let cases: [(arguments: [String], status: Int32, message: String)] = [
      (["--server", "127.0.0.1:\(closed)"], 3, "cannot connect to 127.0.0.1:\(closed)"),
      (
        ["--server", daemon.address], 3,
        "\(daemon.address) needs its admin password (--password or CARDATLAS_PASSWORD): NOAUTH"
      ),
      (
        ["--server", daemon.address, "--password", "wrong"], 3,
        "\(daemon.address) refused the password: WRONGPASS"
      ),
      (
        ["--server", "127.0.0.1:\(redis.port)"], 3,
        "127.0.0.1:\(redis.port) does not take CARD.IMPORT (is it a CardAtlas daemon?)"
      ),
      (["--server", "nohost"], 2, "--server takes host:port, got nohost"),
      (["--server", daemon.address, "--data", scratch.path("x")], 2, "give one of"),
      (["--data", scratch.path("x"), "--bogus"], 2, "Unknown option '--bogus'"),
      (["--data", scratch.path("x"), "--geocoder", "nominatim"], 2, "needs --geocoder-url"),
    ]
    for (arguments, status, message) in cases {
      let run = try runImport(
        [input] + arguments + ["--report", scratch.path("r.csv")], in: scratch)
      #expect(run.status == status, "\(arguments): \(run.err)")
      let first = run.err.split(separator: "\n").first.map(String.init) ?? ""
      #expect(first.hasPrefix("Error: ") && first.contains(message), "\(arguments): \(run.err)")
      #expect(run.out.isEmpty, "\(arguments): no row read: \(run.out)")
      #expect(!FileManager.default.fileExists(atPath: scratch.path("r.csv")), "\(arguments)")
    }
    // Nothing reached the daemon: neither card nor invited owner.
    let admin = try daemon.admin()
    #expect(try admin.command("CARD.IMPORT", "", "", "").text.hasPrefix("-INVALID"))
    let signUp = try RESPConnection(port: daemon.port).command(
      "ACCOUNT.CREATE", "sam@example.com", "a long enough password")
    #expect(signUp.text.hasPrefix("$"), "sam was not invited: \(signUp.text)")
  }

  @Test(
    "a server without an admin password takes the import; a --password given is warned of, not refused"
  )
  func passwordNotNeeded() throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let input = try scratch.write("staff.csv", Self.rows)
    let daemon = try Daemon(data: scratch.path("var"), in: scratch, adminPassword: false)
    defer { daemon.stop() }
    let run = try runImport(
      [input, "--server", daemon.address, "--password", "whatever"], in: scratch)
    #expect(run.status == 0, "\(run.err)")
    #expect(
      run.err.hasPrefix(
        "Warning: \(daemon.address) has no admin password (--requirepass): --password is not needed"
      ), "\(run.err)")
    #expect(run.out.contains("2 created"), "\(run.out)")
    // And without --password, no warning.
    let again = try runImport([input, "--server", daemon.address], in: scratch)
    #expect(again.status == 0 && !again.err.contains("Warning"), "\(again.err)")
    #expect(again.out.contains("2 unchanged"), "\(again.out)")
  }
}
