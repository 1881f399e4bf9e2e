import DomainTestSupport
import Foundation
import IdentityTokens
import Testing

/// `IdentityTokenVerifier` in this process, with no server and no socket: tokens signed by keys
/// the test makes, the keys read from a file. Each check refuses a token that fails it alone,
/// and says why in the log. (SESSION.OPEN IDTOKEN over the wire: DomainTests'
/// `IdentityTokenTests`.)
@Suite("IdentityTokens: the verifier's checks")
struct IdentityTokenVerifierTests {
  let google: TestKey
  let verifier: IdentityTokenVerifier
  let log = CapturedLog()

  init() throws {
    google = try TestKey.rsa("g-1")
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("google-keys-\(UUID().uuidString).json").path
    try TestKey.jwks([google, TestKey.ec("g-2")]).write(to: URL(fileURLWithPath: file))
    verifier = IdentityTokenVerifier(
      .init(providers: [.google(clientIDs: ["web-client"], keys: .init(file))]),
      logger: log.logger)
  }

  private func verify(_ token: String) async -> Result<VerifiedIdentity, IdentityTokenError> {
    do throws(IdentityTokenError) {
      return .success(try await verifier.verify(provider: "google", token: token))
    } catch {
      return .failure(error)
    }
  }

  private func refusal(_ token: String) async -> String? {
    guard case .failure(.refused(let reason)) = await verify(token) else { return nil }
    return reason
  }

  @Test("a valid token proves its provider, subject and email")
  func valid() async throws {
    let token = try google.token(idClaims(subject: "1001", email: "Ana@Gmail.com"))
    let identity = try await verifier.verify(provider: "google", token: token)
    #expect(identity.provider == "google")
    #expect(identity.subject == "1001")
    #expect(identity.email == "Ana@Gmail.com")
    #expect(log.contains("ID token accepted"))
  }

  @Test("each claim checked alone: issuer, audience, expiry, not-before, issue time, email")
  func claims() async throws {
    let now = Int(Date().timeIntervalSince1970)
    func token(_ change: (inout [String: Any]) -> Void) throws -> String {
      var claims = idClaims(subject: "1001", email: "ana@gmail.com")
      change(&claims)
      return try google.token(claims)
    }
    let cases: [(String, (inout [String: Any]) -> Void)] = [
      ("issuer", { $0["iss"] = "https://evil.example" }),
      ("audience", { $0["aud"] = "someone-else" }),
      ("expired", { $0["exp"] = now - 120 }),
      ("not valid before", { $0["nbf"] = now + 600 }),
      ("issued in the future", { $0["iat"] = now + 600 }),
      ("email not verified", { $0["email_verified"] = false }),
      ("no email", { $0["email"] = "" }),
      ("no subject", { $0["sub"] = "" }),
    ]
    for (reason, change) in cases {
      let refused = await refusal(try token(change))
      #expect(refused?.contains(reason) == true, "\(reason): \(refused ?? "accepted")")
    }
    // Within the leeway (60 s), clock skew is tolerated (the time taken afresh: a loaded
    // machine may have spent seconds above).
    let skewed = try token { $0["exp"] = Int(Date().timeIntervalSince1970) - 20 }
    #expect(try await verifier.verify(provider: "google", token: skewed).subject == "1001")
  }

  @Test("a forged or foreign signature, an unknown key, alg none and a mismatched key are refused")
  func signatures() async throws {
    let claims = idClaims(subject: "1001", email: "ana@gmail.com")
    let forger = try TestKey.rsa("g-1")
    #expect(await refusal(try google.token(claims, signer: forger)) != nil, "forged")
    #expect(await refusal(try google.token(claims, kid: "nobody"))?.contains("unknown key") == true)
    // The header names the EC key while the token is RS256.
    #expect(await refusal(try google.token(claims, kid: "g-2"))?.contains("not an RS256") == true)
    let header = try JSONSerialization.data(withJSONObject: ["alg": "none", "kid": "g-1"])
    let body = try JSONSerialization.data(withJSONObject: claims)
    #expect(
      await refusal(header.base64URL + "." + body.base64URL + ".")?.contains("algorithm none")
        == true)
    #expect(await refusal("not.a.token") == "malformed token")
    #expect(await refusal(String(repeating: "a", count: 17_000))?.contains("16 KB") == true)
    #expect(log.contains("ID token refused"))
  }

  @Test("an unconfigured provider is told apart from a refusal")
  func unconfigured() async throws {
    let token = try google.token(idClaims(subject: "1", email: "a@b.c"))
    do {
      _ = try await verifier.verify(provider: "apple", token: token)
      Issue.record("verified for a provider never configured")
    } catch {
      #expect(error == .notConfigured("apple"))
    }
    #expect(!verifier.isConfigured("apple") && verifier.isConfigured("google"))
  }
}
