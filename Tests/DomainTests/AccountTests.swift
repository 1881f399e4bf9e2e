import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Accounts and sessions through the protocol, over real sockets.
@Suite("Accounts")
struct AccountTests {
  @Test(
    "ACCOUNT.CREATE answers the account, with a 6-character username; emails are unique regardless of case (a taken one answers alike, makes nothing, and mails its owner) and validated, passwords at least 6 characters"
  )
  func create() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    let account = try c.object("ACCOUNT.CREATE", "Ana@Example.com", "secret1")
    #expect(account["email"] as? String == "Ana@Example.com")
    #expect(account["isPro"] as? Bool == false)
    #expect(account["id"] as? Int == 1)
    #expect(account["passwordHash"] == nil && account["password_hash"] == nil)
    let username = account["username"] as? String ?? ""
    #expect(username.count == 6 && username.allSatisfy { $0.isLowercase || $0.isNumber })
    // A taken email answers an account as a new one would look, and nothing is made: the
    // owner's password still signs in, the new one does not, and the owner is told by mail.
    let decoy = try c.object("ACCOUNT.CREATE", "ana@EXAMPLE.com", "secret2")
    #expect(Set(decoy.keys) == Set(account.keys))
    #expect(decoy["id"] as? Int == 2 && decoy["email"] as? String == "ana@EXAMPLE.com")
    #expect(try c.text("AUTH", "ana@example.com", "secret2").hasPrefix("WRONGPASS"))
    #expect(try c.text("AUTH", "ana@example.com", "secret1") == "OK")
    _ = try c.command("RESET")
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let notice = try #require(try await ResetMailTests.messages(in: outbox).first)
    #expect(notice.contains("To: Ana@Example.com\r\n"))
    #expect(notice.contains("Subject: Someone tried to sign up with your address"))
    #expect(try c.text("ACCOUNT.CREATE", "not-an-email", "secret1").hasPrefix("INVALID email"))
    #expect(try c.text("ACCOUNT.CREATE", "a b@x.org", "secret1").hasPrefix("INVALID email"))
    // The domain: two labels or more, none empty.
    for email in ["a@x", "a@.x.org", "a@x.org.", "a@x..org", "a@@x.org", "@x.org"] {
      #expect(try c.text("ACCOUNT.CREATE", email, "secret1").hasPrefix("INVALID email"), "\(email)")
    }
    #expect(try c.text("ACCOUNT.CREATE", "bo@x.org", "12345").hasPrefix("INVALID password"))
    let second = try c.object("ACCOUNT.CREATE", "bo@x.org", "123456")
    #expect(second["id"] as? Int == 3 && second["username"] as? String != username)
    #expect(try await server.sql("SELECT count(*) FROM accounts") == "2")
    await server.stop()
  }

  @Test(
    "AUTH <email> <password> signs in; a wrong password and an unknown email get the same error; an account runs no keyspace command"
  )
  func authAndPermissions() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let wrong = try c.text("AUTH", "ana@x.org", "secret2")
    let unknown = try c.text("AUTH", "nobody@x.org", "secret1")
    #expect(wrong == "WRONGPASS invalid username-password pair or user is disabled.")
    #expect(unknown == wrong)
    #expect(
      try c.object("WHOAMI")["admin"] as? Bool == true, "no requirepass: not signed in is admin")
    #expect(try c.text("AUTH", "ANA@x.org", "secret1") == "OK")
    #expect(try c.object("WHOAMI")["email"] as? String == "ana@x.org")
    #expect(try c.text("PING") == "PONG")
    for command in [
      ["GEOADD", "g", "1", "1", "m"], ["KEYS", "*"], ["FLUSHALL"],
      ["CONFIG", "SET", "timeout", "0"], ["ACCOUNT.PRO", "1", "1"],
    ] {
      let reply = try c.command(command).value
      guard case .error(let e) = reply else {
        Issue.record("\(command) answered \(reply)")
        continue
      }
      #expect(e.hasPrefix("NOPERM"), "\(command)")
    }
    // Nothing reached the keyspace.
    let admin = try server.connect()
    #expect(try admin.text("DBSIZE") == "0")
    await server.stop()
  }

  @Test(
    "with --requirepass: sign-up and sign-in work before AUTH, the keyspace needs the admin password, the admin's commands need the admin"
  )
  func requirepass() async throws {
    let server = try await TestDaemon(server: { $0.requirePassword = "adminpw" })
    let c = try server.connect()
    #expect(try c.text("GEOADD", "g", "1", "1", "m").hasPrefix("NOAUTH"))
    let id = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")["id"] as? Int ?? 0
    #expect(try c.text("ACCOUNT.PRO", "\(id)", "1").hasPrefix("NOAUTH"))
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try c.text("ACCOUNT.PRO", "\(id)", "1").hasPrefix("NOPERM"))
    let admin = try server.connect()
    #expect(try admin.text("AUTH", "adminpw") == "OK")
    #expect(try admin.text("GEOADD", "g", "1", "1", "m") == "1")
    #expect(try admin.object("ACCOUNT.PRO", "\(id)", "1")["isPro"] as? Bool == true)
    #expect(try admin.object("ACCOUNT.ROLE", "\(id)", "health")["role"] as? String == "health")
    #expect(try admin.text("ACCOUNT.PRO", "999", "1") == "NOTFOUND no such account")
    #expect(try admin.text("ACCOUNT.PRO", "\(id)", "2") == "ERR syntax error")
    #expect(try c.object("WHOAMI")["isPro"] as? Bool == true)
    // The admin acts as no account.
    #expect(try admin.text("ACCOUNT.PASSWORD", "a", "b").hasPrefix("NOAUTH sign in"))
    await server.stop()
  }

  @Test(
    "HELLO 3 AUTH <email> <password> signs in and switches to RESP3; a command pipelined behind AUTH runs signed in"
  )
  func helloAndPipelinedAuth() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let hello = try c.command("HELLO", "3", "AUTH", "ana@x.org", "secret1")
    #expect(hello.text.hasPrefix("%7\r\n"), "a RESP3 map")
    #expect(hello.text.contains("proto\r\n:3\r\n"))
    #expect(try c.object("WHOAMI")["email"] as? String == "ana@x.org")

    let d = try server.connect()
    #expect(try d.text("HELLO", "3", "AUTH", "ana@x.org", "nope").hasPrefix("WRONGPASS"))
    #expect(try d.command("PING").text == "+PONG\r\n", "still RESP2 after a failed HELLO")
    try d.send(
      RESPConnection.frame(["AUTH", "ana@x.org", "secret1"]) + RESPConnection.frame(["WHOAMI"]))
    #expect(try d.reply().text == "+OK\r\n")
    #expect(try d.reply().text.contains("\"email\":\"ana@x.org\""))
    await server.stop()
  }

  @Test(
    "sessions: several devices at once, tokens survive a restart, CLOSE ends one and CLOSE ALL every one; only hashes are stored"
  )
  func sessions() async throws {
    let server = try await TestDaemon()
    let a = try server.connect()
    _ = try a.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let phone = try a.text("SESSION.OPEN", "ana@x.org", "secret1", "phone")
    let b = try server.connect()
    let laptop = try b.text("SESSION.OPEN", "ana@x.org", "secret1", "laptop")
    let tablet = try b.text("SESSION.OPEN", "ana@x.org", "secret1")
    #expect(phone.count >= 40 && Set([phone, laptop, tablet]).count == 3)
    #expect(try a.text("SESSION.OPEN", "ana@x.org", "bad").hasPrefix("WRONGPASS"))

    try await server.restart()
    let c = try server.connect()
    #expect(try c.object("SESSION.RESUME", phone)["email"] as? String == "ana@x.org")
    #expect(try c.text("SESSION.CLOSE") == "1")
    #expect(try c.text("SESSION.RESUME", phone) == "INVALID token: unknown, used or expired")
    let d = try server.connect()
    #expect(try d.object("SESSION.RESUME", laptop)["email"] as? String == "ana@x.org")
    #expect(try d.text("SESSION.CLOSE", "ALL") == "2")
    #expect(try d.text("SESSION.RESUME", tablet).hasPrefix("INVALID token"))
    #expect(try d.text("SESSION.CLOSE").hasPrefix("NOAUTH"), "signed out")

    let stored = try await server.sql("SELECT count(*) FROM account_sessions")
    #expect(stored == "0")
    let e = try server.connect()
    let kept = try e.text("SESSION.OPEN", "ana@x.org", "secret1")
    let hashes = try await server.sql("SELECT token_hash FROM account_sessions")
    #expect(!hashes.contains(kept) && hashes.count == 64)
    await server.stop()
  }

  @Test("ACCOUNT.PASSWORD needs the old password; the new one signs in, the old no longer")
  func changePassword() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    #expect(try c.text("ACCOUNT.PASSWORD", "wrong1", "secret2").hasPrefix("WRONGPASS"))
    #expect(try c.text("ACCOUNT.PASSWORD", "secret1", "short").hasPrefix("INVALID password"))
    #expect(try c.text("ACCOUNT.PASSWORD", "secret1", "secret2") == "OK")
    let d = try server.connect()
    #expect(try d.text("AUTH", "ana@x.org", "secret1").hasPrefix("WRONGPASS"))
    #expect(try d.text("AUTH", "ana@x.org", "secret2") == "OK")
    await server.stop()
  }

  @Test(
    "a password reset mails a one-time token valid for its lifetime; asking for an unknown email answers the same; a reset closes every session"
  )
  func passwordReset() async throws {
    // An hour, as by default: a loaded test run may take seconds to read the mail.
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let session = try c.text("SESSION.OPEN", "ana@x.org", "secret1")
    let d = try server.connect()
    #expect(try d.text("ACCOUNT.RESET.REQUEST", "nobody@x.org") == "OK")
    #expect(try d.text("ACCOUNT.RESET.REQUEST", "ANA@x.org") == "OK")
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let mail = try #require(try await ResetMailTests.messages(in: outbox).first)
    // Mail is handed over in order: the unknown email's request, made first, is done.
    let mails = try FileManager.default.contentsOfDirectory(atPath: outbox)
    #expect(mails.count == 1, "no mail for an unknown email")
    #expect(mail.contains("To: ana@x.org\r\n"))
    let token = try #require(ResetMailTests.token(in: mail))
    #expect(try d.text("ACCOUNT.RESET", "wrong-token", "secret9").hasPrefix("INVALID token"))
    #expect(try d.text("ACCOUNT.RESET", token, "new-secret") == "OK")
    #expect(try d.text("ACCOUNT.RESET", token, "other-secret").hasPrefix("INVALID token"))
    #expect(try d.text("AUTH", "ana@x.org", "new-secret") == "OK")
    #expect(try d.text("SESSION.RESUME", session).hasPrefix("INVALID token"))
    await server.stop()
  }

  @Test("a reset token past its lifetime is refused")
  func resetExpires() async throws {
    let server = try await TestDaemon(accounts: { $0.resetLifetime = 1 })
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    #expect(try c.text("ACCOUNT.RESET.REQUEST", "ana@x.org") == "OK")
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let mail = try #require(try await ResetMailTests.messages(in: outbox).first)
    let token = try #require(ResetMailTests.token(in: mail))
    try await Task.sleep(for: .seconds(1.5))
    #expect(try c.text("ACCOUNT.RESET", token, "newer-secret").hasPrefix("INVALID token"))
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    await server.stop()
  }

  @Test(
    "ACCOUNT.DELETE needs the password; the account, its sessions and its email go, and survive a restart gone"
  )
  func delete() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    let first = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")["id"] as? Int ?? 0
    let token = try c.text("SESSION.OPEN", "ana@x.org", "secret1")
    #expect(try c.text("ACCOUNT.DELETE", "wrong1").hasPrefix("WRONGPASS"))
    #expect(try c.text("ACCOUNT.DELETE", "secret1") == "OK")
    #expect(try c.object("WHOAMI")["admin"] as? Bool == true, "signed out")
    try await server.restart()
    let d = try server.connect()
    #expect(try d.text("AUTH", "ana@x.org", "secret1").hasPrefix("WRONGPASS"))
    #expect(try d.text("SESSION.RESUME", token).hasPrefix("INVALID token"))
    // A new account, its id never the deleted one's (the next, or over PostgreSQL the next block's).
    let again = try d.object("ACCOUNT.CREATE", "ana@x.org", "secret1")["id"] as? Int ?? 0
    #expect(again > first, "\(again) after \(first)")
    await server.stop()
  }

  @Test("repeated failed sign-ins for one email are slowed down")
  func throttle() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    for _ in 0..<5 { #expect(try c.text("AUTH", "ana@x.org", "guess").hasPrefix("WRONGPASS")) }
    let start = ContinuousClock.now
    #expect(try c.text("AUTH", "ana@x.org", "guess").hasPrefix("WRONGPASS"))
    #expect(start.duration(to: .now) >= .milliseconds(900), "the sixth waits a second")
    // Other clients meanwhile are not held up.
    let other = try server.connect()
    let ping = ContinuousClock.now
    try c.send(RESPConnection.frame(["AUTH", "ana@x.org", "guess"]))
    #expect(try other.text("PING") == "PONG")
    #expect(ping.duration(to: .now) < .milliseconds(500))
    #expect(try c.reply().text.hasPrefix("-WRONGPASS"))
    await server.stop()
  }

  @Test("passwords are stored as scrypt hashes at the default cost")
  func storedHash() async throws {
    let server = try await TestDaemon(accounts: { $0.hasher = .init() })
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let hash = try await server.sql("SELECT password_hash FROM accounts")
    #expect(hash.hasPrefix("scrypt$14$8$1$") && !hash.contains("secret1"))
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    await server.stop()
  }

  @Test("redis-py signs in with username and password over RESP3")
  func redisPy() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let script = """
      import json, redis
      from redis.backoff import NoBackoff
      from redis.retry import Retry
      r = redis.Redis(port=\(server.port), username="ana@x.org", password="secret1", protocol=3)
      print(json.loads(r.execute_command("WHOAMI"))["email"])
      try:
          # redis-py retries a refused sign-in by default (it is a ConnectionError), and each
          # retry counts as a failure: once, here.
          redis.Redis(
              port=\(server.port), username="ana@x.org", password="bad", protocol=3,
              retry=Retry(NoBackoff(), 0)).ping()
      except redis.exceptions.AuthenticationError as e:
          print("refused")
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    #expect(output == "ana@x.org\nrefused\n")
    await server.stop()
  }
}
