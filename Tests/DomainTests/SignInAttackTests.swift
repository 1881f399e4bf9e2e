import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Synchronization
import Testing

/// Password guessing, written as the attacks: reconnecting to reset the throttle, guessing in
/// parallel, guessing from many addresses, guessing through the password change and the
/// deletion, and flooding the hashing queue; the owner must still get in.
@Suite("Sign-in throttle under attack")
struct SignInAttackTests {
  /// What `body` answers, and the time it took.
  static func timed<T>(_ body: () throws -> T) throws -> (T, Duration) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, start.duration(to: .now))
  }

  @Test("reconnecting does not reset the throttle: it counts by address, not by port")
  func reconnect() async throws {
    let server = try await TestDaemon()
    _ = try server.connect().object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    for _ in 0..<5 {
      let c = try server.connect()
      #expect(try c.text("AUTH", "ana@x.org", "guess1").hasPrefix("WRONGPASS"))
    }
    let fresh = try server.connect()
    let (reply, waited) = try Self.timed { try fresh.text("AUTH", "ana@x.org", "guess2") }
    #expect(reply.hasPrefix("WRONGPASS"))
    #expect(waited >= .milliseconds(900), "a new connection from the same address waits its turn")
    await server.stop()
  }

  @Test(
    "parallel guesses queue for their turns instead of sharing one wait, and the owner at another address signs in at once meanwhile"
  )
  func parallelGuesses() async throws {
    let server = try await TestDaemon()
    _ = try server.connect().object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let attacker = try server.connect()
    for _ in 0..<5 {
      #expect(try attacker.text("AUTH", "ana@x.org", "guess").hasPrefix("WRONGPASS"))
    }
    let guesses = 5
    let connections = try (0..<guesses).map { _ in try server.connect() }
    let start = ContinuousClock.now
    for c in connections { try c.send(RESPConnection.frame(["AUTH", "ana@x.org", "guess"])) }
    // The owner, elsewhere, is not held up by the siege.
    let owner = try server.connect(from: "127.0.0.2")
    let (reply, ownerTime) = try Self.timed { try owner.text("AUTH", "ana@x.org", "secret1") }
    #expect(reply == "OK")
    // A turn would be a second or more.
    #expect(ownerTime < .milliseconds(900), "the owner waited \(ownerTime)")
    var answered: [Duration] = []
    for c in connections {
      #expect(try c.reply().text.hasPrefix("-WRONGPASS"))
      answered.append(start.duration(to: .now))
    }
    // Turns are at least a second apart: five guesses take four seconds or more, not one.
    #expect(answered.max()! >= .milliseconds(3_600), "answered at \(answered)")
    await server.stop()
  }

  @Test(
    "many addresses guessing one email: past the email's limit, new addresses wait; the owner from an address that signed in before passes"
  )
  func manyAddresses() async throws {
    let server = try await TestDaemon(accounts: { $0.throttle.freeEmailFailures = 20 })
    _ = try server.connect().object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let home = try server.connect(from: "127.0.0.2")
    #expect(try home.text("AUTH", "ana@x.org", "secret1") == "OK")
    // The email's 20 free failures, and one more: its turns begin.
    for host in 10..<31 {
      let c = try server.connect(from: "127.0.0.\(host)")
      #expect(try c.text("AUTH", "ana@x.org", "guess").hasPrefix("WRONGPASS"))
    }
    let next = try server.connect(from: "127.0.0.77")
    let (guess, waited) = try Self.timed { try next.text("AUTH", "ana@x.org", "guess") }
    #expect(guess.hasPrefix("WRONGPASS") || guess.hasPrefix("LIMIT"), "\(guess)")
    #expect(waited >= .milliseconds(900), "a new address waits its turn on the besieged email")
    let again = try server.connect(from: "127.0.0.2")
    let (reply, ownerTime) = try Self.timed { try again.text("AUTH", "ana@x.org", "secret1") }
    #expect(reply == "OK")
    #expect(ownerTime < .milliseconds(900), "the owner's known address waited \(ownerTime)")
    await server.stop()
  }

  @Test("the old password of ACCOUNT.PASSWORD and ACCOUNT.DELETE is throttled like a sign-in")
  func oldPasswordChecks() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    #expect(try c.text("AUTH", "ana@x.org", "secret1") == "OK")
    for i in 0..<5 {
      let reply = try c.text(
        i % 2 == 0 ? ["ACCOUNT.PASSWORD", "guess", "secret2"] : ["ACCOUNT.DELETE", "guess"])
      #expect(reply.hasPrefix("WRONGPASS"))
    }
    for command in [["ACCOUNT.PASSWORD", "guess", "secret2"], ["ACCOUNT.DELETE", "guess"]] {
      let (reply, waited) = try Self.timed { try c.text(command) }
      #expect(reply.hasPrefix("WRONGPASS"))
      #expect(waited >= .milliseconds(900), "\(command) waited \(waited)")
    }
    await server.stop()
  }

  @Test(
    "one client cannot hold up everyone's sign-in: 2,500 pipelined ACCOUNT.PASSWORD, and 64 connections signing up at once, leave another address's AUTH within a few hashes' time"
  )
  func hashingQueue() async throws {
    let server = try await TestDaemon(accounts: { $0.hasher = .init() })
    let victim = try server.connect(from: "127.0.0.2")
    _ = try victim.object("ACCOUNT.CREATE", "victim@x.org", "secret1")
    // The victim's sign-in with nothing else going on: about one default-cost hash.
    var quiet: [Duration] = []
    for _ in 0..<3 {
      let (reply, waited) = try Self.timed { try victim.text("AUTH", "victim@x.org", "secret1") }
      #expect(reply == "OK")
      quiet.append(waited)
    }
    let attacker = try server.connect()
    _ = try attacker.object("ACCOUNT.CREATE", "mallory@x.org", "secret1")
    #expect(try attacker.text("AUTH", "mallory@x.org", "secret1") == "OK")
    var storm: [UInt8] = []
    for i in 0..<2_500 {
      storm += RESPConnection.frame(["ACCOUNT.PASSWORD", "guess\(i)", "secret2"])
    }
    try attacker.send(storm)
    let signUps = try (0..<64).map { i in
      let c = try server.connect()
      try c.send(RESPConnection.frame(["ACCOUNT.CREATE", "flood\(i)@x.org", "secret1"]))
      return c
    }
    try await Task.sleep(for: .milliseconds(200))
    let (reply, waited) = try Self.timed { try victim.text("AUTH", "victim@x.org", "secret1") }
    #expect(reply == "OK")
    // Behind 64 sign-ups it would take some 30 hashes' time; behind the two places its
    // attacker's address may hold, two or three.
    let hash = quiet.sorted()[1]
    #expect(waited < hash * 6, "the victim's AUTH took \(waited), \(hash) when quiet")
    withExtendedLifetime(signUps) {}
    await server.stop()
  }
}

/// Which emails have accounts must not show: not in sign-up's answer, nor AUTH's or reset's
/// time, and mails are limited per email and per address.
@Suite("Email enumeration")
struct EmailEnumerationTests {
  /// The medians of `tries` timings of `known` and of `unknown`, taken in pairs `pause`
  /// microseconds apart (for work left behind to settle), and the median of each pair's
  /// ratio unknown/known: a shared machine's load drifts between pairs, hardly within one.
  static func medians(
    _ tries: Int, pause: UInt32 = 0, known: () throws -> Void, unknown: () throws -> Void
  ) throws -> Timings {
    var a: [Double] = []
    var b: [Double] = []
    // Each goes first in every other pair, so work one leaves behind weighs on both alike.
    for i in 0..<tries {
      if i.isMultiple(of: 2) {
        a.append(try seconds(known))
        usleep(pause)
        b.append(try seconds(unknown))
      } else {
        b.append(try seconds(unknown))
        usleep(pause)
        a.append(try seconds(known))
      }
      usleep(pause)
    }
    let ratios = zip(b, a).map { $0 / $1 }.sorted()
    return Timings(
      known: a.sorted()[tries / 2], unknown: b.sorted()[tries / 2], ratio: ratios[tries / 2])
  }

  struct Timings: CustomStringConvertible {
    let known: Double
    let unknown: Double
    let ratio: Double
    /// Within 10% of each other.
    var close: Bool { abs(ratio - 1) <= 0.10 }
    var description: String {
      String(
        format: "known %.2f ms, unknown %.2f ms (medians), unknown/known %.3f (median of pairs)",
        known * 1000, unknown * 1000, ratio)
    }
  }

  static func seconds(_ body: () throws -> Void) throws -> Double {
    let start = ContinuousClock.now
    try body()
    let d = start.duration(to: .now).components
    return Double(d.seconds) + Double(d.attoseconds) / 1e18
  }

  @Test(
    "AUTH takes the same time for a registered and an unknown email, with a normal password, one over 1,024 bytes, and for an account without a password (medians of 200)"
  )
  func authTiming() async throws {
    let server = try await TestDaemon(accounts: {
      $0.throttle.freeFailures = 1_000_000
      $0.throttle.freeEmailFailures = 1_000_000
    })
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    let long = String(repeating: "x", count: 2_000)
    for password in ["wrong-password", long] {
      let m = try Self.medians(
        200, known: { _ = try c.text("AUTH", "ana@x.org", password) },
        unknown: { _ = try c.text("AUTH", "nobody@x.org", password) })
      print("AUTH, password of \(password.count): \(m)")
      #expect(m.close, "password of \(password.count): \(m)")
    }
    await server.stop()
  }

  @Test(
    "ACCOUNT.RESET.REQUEST takes the same time for a registered and an unknown email (medians of 200), and answers alike"
  )
  func resetTiming() async throws {
    let server = try await TestDaemon(accounts: {
      $0.resetsPerEmail = 0
      $0.resetsPerAddress = 0
    })
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    var replies: Set<String> = []
    let m = try Self.medians(
      200, pause: 15_000,
      known: { replies.insert(try c.text("ACCOUNT.RESET.REQUEST", "ana@x.org")) },
      unknown: { replies.insert(try c.text("ACCOUNT.RESET.REQUEST", "nobody@x.org")) })
    #expect(replies == ["OK"])
    print("ACCOUNT.RESET.REQUEST: \(m)")
    #expect(m.close, "\(m)")
    await server.stop()
  }

  @Test(
    "sign-ups are limited per address, with a clear LIMIT error; a taken email's owner is mailed once an hour however often it is tried"
  )
  func signUpLimits() async throws {
    let server = try await TestDaemon(accounts: { $0.signUpsPerAddress = 3 })
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "other11")
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "other22")
    let refused = try c.text("ACCOUNT.CREATE", "new@x.org", "secret1")
    #expect(refused.hasPrefix("LIMIT too many sign-ups from your address, retry after "))
    #expect(refused.hasSuffix(" s"))
    let elsewhere = try server.connect(from: "127.0.0.2")
    #expect(try elsewhere.object("ACCOUNT.CREATE", "new@x.org", "secret1")["email"] != nil)
    #expect(try elsewhere.object("ACCOUNT.CREATE", "ana@x.org", "other33")["email"] != nil)
    // Mail is handed over in order: once a reset mail asked for after them is there, every
    // notice the sign-ups sent is too.
    #expect(try elsewhere.text("ACCOUNT.RESET.REQUEST", "new@x.org") == "OK")
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let mails = try await ResetMailTests.messages(in: outbox, count: 2)
    #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).count == 2)
    #expect(mails.filter { $0.contains("Subject: Someone tried to sign up") }.count == 1)
    await server.stop()
  }

  @Test(
    "reset requests are limited per email (known or not) and per address; only a known email is mailed"
  )
  func resetLimits() async throws {
    let server = try await TestDaemon()
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    for email in ["ana@x.org", "nobody@x.org"] {
      for _ in 0..<3 { #expect(try c.text("ACCOUNT.RESET.REQUEST", email) == "OK") }
      #expect(
        try c.text("ACCOUNT.RESET.REQUEST", email).hasPrefix(
          "LIMIT too many reset requests for this email, retry after "))
    }
    // Ten an hour from one address, refused ones included: two more, then no more.
    for i in 0..<2 { #expect(try c.text("ACCOUNT.RESET.REQUEST", "p\(i)@x.org") == "OK") }
    #expect(
      try c.text("ACCOUNT.RESET.REQUEST", "q@x.org").hasPrefix(
        "LIMIT too many reset requests from your address"))
    // A known email's reset from elsewhere, asked last: once its mail is there, all are.
    _ = try server.connect(from: "127.0.0.2").object("ACCOUNT.CREATE", "bo@x.org", "secret1")
    #expect(try server.connect(from: "127.0.0.2").text("ACCOUNT.RESET.REQUEST", "bo@x.org") == "OK")
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let mails = try await ResetMailTests.messages(in: outbox, count: 4)
    #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).count == 4)
    #expect(mails.filter { $0.contains("To: ana@x.org") }.count == 3)
    await server.stop()
  }
}
