import DaemonTestSupport
import DomainTestSupport
import Foundation
import IdentityTokens
import RESP
import RedisTestSupport
import Testing

/// SESSION.OPEN IDTOKEN through the protocol: tokens signed by keys the test makes, the keys
/// served as a JWKS by a real HTTP server (python3 -m http.server) and from a file.
@Suite("IdentityTokens")
struct IdentityTokenTests {
  /// Google's keys over HTTP, Apple's from a file.
  final class Fixture {
    let google: TestKey
    let apple: TestKey
    let http: BackgroundProgram
    let appleFile: String
    let log = CapturedLog()
    let server: TestDaemon

    init(google: TestKey, refetchInterval: Double = 60, maximumInFlight: Int = 1_000) async throws {
      self.google = google
      apple = TestKey.ec("apple-1")
      http = try BackgroundProgram(
        python: ["-m", "http.server", "--bind", "127.0.0.1", "--directory", "{dir}", "{port}"])
      appleFile = (http.directory as NSString).appendingPathComponent("apple-keys.json")
      try TestKey.jwks([apple]).write(to: URL(fileURLWithPath: appleFile))
      let url = "http://127.0.0.1:\(http.port)/certs.json"
      let (file, logger) = (appleFile, log.logger)
      try Self.publish([google], in: http)
      server = try await TestDaemon(accounts: {
        var configuration = IdentityTokenVerifier.Configuration(providers: [
          .google(clientIDs: ["web-client", "ios-client"], keys: .init(url)),
          .apple(clientIDs: ["org.cardatlas.app"], keys: .init(file)),
        ])
        configuration.minimumRefetchInterval = refetchInterval
        configuration.maximumInFlight = maximumInFlight
        $0.identityTokens = IdentityTokenVerifier(configuration, logger: logger)
      })
    }

    static func publish(_ keys: [TestKey], in http: BackgroundProgram) throws {
      let path = (http.directory as NSString).appendingPathComponent("certs.json")
      try TestKey.jwks(keys).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    func publish(_ keys: [TestKey]) throws { try Self.publish(keys, in: http) }

    /// How many times the server fetched Google's keys.
    var fetches: Int {
      http.output().components(separatedBy: "GET /certs.json").count - 1
    }

    func stop() async {
      await server.stop()
      http.stop()
    }
  }

  @Test(
    "a valid Google token signs in and creates a passwordless account; the same subject signs in to it again, even with a new email, and after a restart"
  )
  func createsThenSignsIn() async throws {
    let f = try await Fixture(google: try .rsa("g-1"))
    let c = try f.server.connect()
    let token = try f.google.token(idClaims(subject: "1001", email: "Ana@Gmail.com"))
    let session = try c.text("SESSION.OPEN", "IDTOKEN", "google", token, "pixel")
    #expect(session.count == 43, "a session token, as SESSION.OPEN with a password answers")
    let me = try c.object("WHOAMI")
    #expect(me["email"] as? String == "Ana@Gmail.com")
    let id = me["id"] as? Int
    #expect(id != nil)
    // The session token signs in elsewhere.
    let other = try f.server.connect()
    #expect(try other.object("SESSION.RESUME", session)["id"] as? Int == id)
    // No password signs in a passwordless account.
    #expect(try other.text("AUTH", "ana@gmail.com", "").hasPrefix("WRONGPASS"))
    // Same subject, new email (changed at Google), second client id: the same account.
    let again = try f.google.token(
      idClaims(audience: "ios-client", subject: "1001", email: "ana.new@gmail.com"))
    let d = try f.server.connect()
    #expect(try d.text("SESSION.OPEN", "idtoken", "GOOGLE", again).count == 43)
    #expect(try d.object("WHOAMI")["id"] as? Int == id)
    try await f.server.restart()
    let e = try f.server.connect()
    #expect(try e.text("SESSION.OPEN", "IDTOKEN", "google", again).count == 43)
    #expect(try e.object("WHOAMI")["id"] as? Int == id, "the link is in the store")
    #expect(f.log.contains("ID token accepted"))
    await f.stop()
  }

  @Test(
    "a token whose verified email has a password account links to it: both sign in to it; deleting the account deletes the link"
  )
  func linksByEmailAndDeletionUnlinks() async throws {
    let f = try await Fixture(google: try .rsa("g-1"))
    let (_, id, _) = try f.server.signedIn("bo@example.org")
    let token = try f.google.token(idClaims(subject: "2002", email: "BO@example.org"))
    let d = try f.server.connect()
    #expect(try d.text("SESSION.OPEN", "IDTOKEN", "google", token).count == 43)
    #expect(try d.object("WHOAMI")["id"] as? Int == id)
    #expect(try f.server.connect().text("AUTH", "bo@example.org", "secret1") == "OK")
    // Deleted: the same subject makes a new account, not the deleted one back.
    #expect(try d.text("ACCOUNT.DELETE", "secret1") == "OK")
    let e = try f.server.connect()
    #expect(try e.text("SESSION.OPEN", "IDTOKEN", "google", token).count == 43)
    let fresh = try e.object("WHOAMI")["id"] as? Int ?? 0
    #expect(fresh > id)
    await f.stop()
  }

  @Test(
    "an account that signs in with Google deletes itself with a fresh token of its own subject; no password, another subject's token or a bad token deletes it"
  )
  func passwordlessDeletion() async throws {
    let f = try await Fixture(google: try .rsa("g-1"))
    let c = try f.server.connect()
    let own = try f.google.token(idClaims(subject: "3003", email: "cy@gmail.com"))
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", own).count == 43)
    let id = try c.object("WHOAMI")["id"] as? Int ?? 0
    #expect(try c.object("CARD.CREATE", #"{"firstName":"Cy"}"#)["ownerId"] as? Int == id)
    let other = try f.google.token(idClaims(subject: "4004", email: "dee@gmail.com"))
    #expect(try f.server.connect().text("SESSION.OPEN", "IDTOKEN", "google", other).count == 43)
    #expect(try c.text("ACCOUNT.DELETE", "").hasPrefix("WRONGPASS"))
    #expect(try c.text("ACCOUNT.DELETE", "IDTOKEN", "google", other) == "ERR invalid ID token")
    #expect(try c.text("ACCOUNT.DELETE", "IDTOKEN", "google", own + "x") == "ERR invalid ID token")
    #expect(try c.text("ACCOUNT.DELETE", "IDTOKEN", "google").hasPrefix("ERR syntax"))
    #expect(try c.object("WHOAMI")["id"] as? Int == id, "still there, still signed in")
    #expect(try c.text("ACCOUNT.DELETE", "IDTOKEN", "google", own) == "OK")
    #expect(try c.object("WHOAMI")["admin"] as? Bool == true, "signed out (no requirepass)")
    let d = try f.server.connect()
    #expect(try d.text("SESSION.OPEN", "IDTOKEN", "google", own).count == 43)
    #expect(try d.object("WHOAMI")["id"] as? Int ?? 0 > id, "a new account, not the deleted one")
    #expect(try d.command("CARD.MINE").value.arrayCount == 0, "its cards went with it")
    await f.stop()
  }

  @Test(
    "Apple: ES256 key from a file, email_verified as the string \"true\"; Apple's issuer and client id only"
  )
  func apple() async throws {
    let f = try await Fixture(google: try .rsa("g-1"))
    let c = try f.server.connect()
    var claims = idClaims(
      issuer: "https://appleid.apple.com", audience: "org.cardatlas.app", subject: "000123.abc",
      email: "x7@privaterelay.appleid.com", verified: "true")
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "apple", try f.apple.token(claims)).count == 43)
    #expect(try c.object("WHOAMI")["email"] as? String == "x7@privaterelay.appleid.com")
    claims["email_verified"] = "false"
    claims["sub"] = "000124.abc"
    claims["email"] = "x8@privaterelay.appleid.com"
    let d = try f.server.connect()
    #expect(
      try d.text("SESSION.OPEN", "IDTOKEN", "apple", try f.apple.token(claims))
        == "ERR invalid ID token")
    // A Google token is not an Apple one, even if signed by Apple's key.
    let google = idClaims(audience: "org.cardatlas.app", subject: "9", email: "g@x.org")
    #expect(
      try d.text("SESSION.OPEN", "IDTOKEN", "apple", try f.apple.token(google))
        == "ERR invalid ID token")
    #expect(try d.object("WHOAMI")["admin"] as? Bool == true, "not signed in")
    #expect(f.log.contains("email not verified"))
    await f.stop()
  }

  @Test(
    "every refused token answers the same error, logs why, signs nothing in and creates nothing"
  )
  func refusals() async throws {
    let f = try await Fixture(google: try .rsa("g-1"))
    let other = try TestKey.rsa("g-1")
    let now = Date()
    var cases: [(String, String, String)] = []  // (email, token, logged reason)
    func add(_ email: String, _ why: String, _ make: ([String: Any]) throws -> String) rethrows {
      cases.append((email, try make(idClaims(subject: "s-\(email)", email: email)), why))
    }
    try add("expired@x.org", "expired") { c in
      var c = c
      c["exp"] = Int(now.timeIntervalSince1970) - 120
      return try f.google.token(c)
    }
    try add("early@x.org", "not valid before") { c in
      var c = c
      c["nbf"] = Int(now.timeIntervalSince1970) + 600
      return try f.google.token(c)
    }
    try add("future@x.org", "issued in the future") { c in
      var c = c
      c["iat"] = Int(now.timeIntervalSince1970) + 600
      return try f.google.token(c)
    }
    try add("aud@x.org", "audience") { c in
      var c = c
      c["aud"] = "someone-elses-client"
      return try f.google.token(c)
    }
    try add("iss@x.org", "issuer") { c in
      var c = c
      c["iss"] = "https://evil.example"
      return try f.google.token(c)
    }
    try add("none@x.org", "algorithm none") { c in
      let header = try JSONSerialization.data(withJSONObject: ["alg": "none", "kid": "g-1"])
      return header.base64URL + "." + (try JSONSerialization.data(withJSONObject: c)).base64URL
        + "."
    }
    try add("tampered@x.org", "signatureVerificationFailed") { c in
      // A valid token for another email, its payload swapped for this one's.
      let valid = try f.google.token(idClaims(subject: "s-tampered@x.org", email: "t@x.org"))
      let parts = valid.split(separator: ".")
      let payload = try JSONSerialization.data(withJSONObject: c).base64URL
      return "\(parts[0]).\(payload).\(parts[2])"
    }
    try add("otherkey@x.org", "signatureVerificationFailed") { c in
      try f.google.token(c, signer: other)
    }
    try add("unknownkid@x.org", "unknown key id") { c in
      try other.token(c, kid: "g-404")
    }
    try add("unverified@x.org", "email not verified") { c in
      var c = c
      c["email_verified"] = false
      return try f.google.token(c)
    }
    try add("noverified@x.org", "email not verified") { c in
      var c = c
      c["email_verified"] = nil
      return try f.google.token(c)
    }
    cases.append(("", "not.a.jwt", "malformed"))
    let c = try f.server.connect()
    for (email, token, why) in cases {
      #expect(
        try c.text("SESSION.OPEN", "IDTOKEN", "google", token) == "ERR invalid ID token", "\(email)"
      )
      #expect(f.log.contains(why), "\(email): the log says \(why)")
    }
    #expect(try c.object("WHOAMI")["admin"] as? Bool == true, "not signed in")
    // Nothing was created: each email is free, and ids start at 1.
    for (email, _, _) in cases where !email.isEmpty {
      #expect(try c.text("ACCOUNT.CREATE", email, "secret1").contains("\"email\":\"\(email)\""))
    }
    #expect(try c.object("ACCOUNT.CREATE", "last@x.org", "secret1")["id"] as? Int == cases.count)
    await f.stop()
  }

  @Test(
    "a new key in the JWKS is fetched when a token names it, but unknown key ids refetch at most once per interval"
  )
  func keyRotation() async throws {
    let old = try TestKey.rsa("g-1")
    let new = try TestKey.rsa("g-2")
    let f = try await Fixture(google: old, refetchInterval: 3)
    let c = try f.server.connect()
    let first = try old.token(idClaims(subject: "r1", email: "r1@x.org"))
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", first).count == 43)
    #expect(f.fetches == 1)
    try f.publish([old, new])
    let rotated = try new.token(idClaims(subject: "r2", email: "r2@x.org"))
    // Within the interval: no refetch, so the new key is not known yet.
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", rotated) == "ERR invalid ID token")
    #expect(f.fetches == 1)
    try await Task.sleep(for: .milliseconds(3_100))
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", rotated).count == 43)
    #expect(f.fetches == 2)
    // Made-up key ids, one after another: no fetch within the interval.
    for kid in ["x1", "x2", "x3"] {
      let bogus = try new.token(idClaims(subject: "r3", email: "r3@x.org"), kid: kid)
      #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", bogus) == "ERR invalid ID token")
    }
    #expect(f.fetches == 2)
    // The old key still signs in while it is published.
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", first).count == 43)
    await f.stop()
  }

  @Test("past the checks allowed at once, a token answers BUSY and signs nothing in")
  func busy() async throws {
    let f = try await Fixture(google: try .rsa("g-1"), maximumInFlight: 0)
    let c = try f.server.connect()
    let token = try f.google.token(idClaims(subject: "5005", email: "ed@gmail.com"))
    #expect(try c.text("SESSION.OPEN", "IDTOKEN", "google", token).hasPrefix("BUSY"))
    #expect(try c.object("WHOAMI")["admin"] as? Bool == true, "still signed out")
    #expect(f.fetches == 0, "no key fetched for a check that did not run")
    await f.stop()
  }

  @Test("keys that cannot be fetched answer that the check cannot be made now, not a refusal")
  func keysUnavailable() async throws {
    let nobody = try RedisProcess.freeLoopbackPort()
    let server = try await TestDaemon(accounts: {
      $0.identityTokens = IdentityTokenVerifier(
        .init(providers: [
          .google(clientIDs: ["web-client"], keys: .init("http://127.0.0.1:\(nobody)/certs"))
        ]), logger: CapturedLog().logger)
    })
    let token = try TestKey.ec("g-1").token(idClaims(subject: "u", email: "u@x.org"))
    #expect(
      try server.connect().text("SESSION.OPEN", "IDTOKEN", "google", token)
        == "ERR cannot check ID tokens now (provider keys unavailable), try again")
    await server.stop()
  }

  @Test(
    "without a provider's client id the command answers not configured; bad arguments a syntax error"
  )
  func notConfigured() async throws {
    let plain = try await TestDaemon()
    let c = try plain.connect()
    #expect(
      try c.text("SESSION.OPEN", "IDTOKEN", "google", "a.b.c")
        == "ERR sign-in with google ID tokens is not configured on this server")
    await plain.stop()
    let f = try await Fixture(google: try .rsa("g-1"))
    let d = try f.server.connect()
    #expect(
      try d.text("SESSION.OPEN", "IDTOKEN", "facebook", "a.b.c")
        == "ERR sign-in with facebook ID tokens is not configured on this server")
    #expect(try d.text("SESSION.OPEN", "IDTOKEN", "google").hasPrefix("ERR syntax"))
    let huge = try f.google.token(
      idClaims(subject: "h", email: "h@x.org").merging([
        "pad": String(repeating: "x", count: 20_000)
      ]) { $1 })
    #expect(try d.text("SESSION.OPEN", "IDTOKEN", "google", huge) == "ERR invalid ID token")
    #expect(f.log.contains("longer than 16 KB"))
    #expect(
      try d.text("SESSION.OPEN", "IDTOKEN", "google", "t", "dev", "x").hasPrefix("ERR syntax"))
    await f.stop()
  }
}
