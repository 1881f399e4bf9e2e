import Crypto
import CryptoExtras
import Foundation
import Logging
import Synchronization

/// A signing key as a provider holds it: RS256 (what Google and Apple use) or ES256.
public struct TestKey {
  public enum Kind {
    case rsa(_RSA.Signing.PrivateKey)
    case ec(P256.Signing.PrivateKey)
  }

  public let kid: String
  public let kind: Kind

  public static func rsa(_ kid: String) throws -> TestKey {
    TestKey(kid: kid, kind: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
  }

  public static func ec(_ kid: String) -> TestKey {
    TestKey(kid: kid, kind: .ec(P256.Signing.PrivateKey()))
  }

  public var alg: String {
    switch kind {
    case .rsa: "RS256"
    case .ec: "ES256"
    }
  }

  /// The public key as a JWKS entry.
  public func jwk() throws -> [String: String] {
    switch kind {
    case .rsa(let key):
      let primitives = try key.publicKey.getKeyPrimitives()
      return [
        "kty": "RSA", "alg": alg, "use": "sig", "kid": kid,
        "n": primitives.modulus.base64URL, "e": primitives.publicExponent.base64URL,
      ]
    case .ec(let key):
      // x963: 0x04, then x and y, 32 bytes each.
      let point = key.publicKey.x963Representation.dropFirst()
      return [
        "kty": "EC", "alg": alg, "use": "sig", "kid": kid, "crv": "P-256",
        "x": Data(point.prefix(32)).base64URL, "y": Data(point.suffix(32)).base64URL,
      ]
    }
  }

  public func sign(_ input: Data) throws -> Data {
    switch kind {
    case .rsa(let key): try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation
    case .ec(let key): try key.signature(for: input).rawRepresentation
    }
  }

  /// A JWT with these claims, its header naming this key (or `kid`), signed by `signer`
  /// (default: this key).
  public func token(_ claims: [String: Any], kid: String? = nil, signer: TestKey? = nil) throws
    -> String
  {
    let header = try JSONSerialization.data(withJSONObject: [
      "alg": alg, "kid": kid ?? self.kid, "typ": "JWT",
    ])
    let payload = try JSONSerialization.data(withJSONObject: claims)
    let input = header.base64URL + "." + payload.base64URL
    return input + "." + (try (signer ?? self).sign(Data(input.utf8))).base64URL
  }

  public static func jwks(_ keys: [TestKey]) throws -> Data {
    try JSONSerialization.data(withJSONObject: ["keys": try keys.map { try $0.jwk() }])
  }
}

/// Claims as Google's or Apple's ID tokens carry them, valid now; tests change one at a time.
public func idClaims(
  issuer: String = "https://accounts.google.com", audience: Any = "web-client",
  subject: String, email: String, verified: Any = true, now: Date = Date()
) -> [String: Any] {
  let t = Int(now.timeIntervalSince1970)
  return [
    "iss": issuer, "aud": audience, "sub": subject, "email": email, "email_verified": verified,
    "iat": t - 10, "nbf": t - 10, "exp": t + 3_600,
  ]
}

extension Data {
  public var base64URL: String {
    base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }
}

/// Log lines kept for a test to read: refusals must say why in the log.
public final class CapturedLog: Sendable {
  public let lines = Mutex<[String]>([])

  public init() {}

  public var logger: Logger {
    var logger = Logger(label: "identity-test") { _ in Handler(log: self) }
    logger.logLevel = .info
    return logger
  }

  public func contains(_ text: String) -> Bool {
    lines.withLock { $0.contains { $0.contains(text) } }
  }

  struct Handler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      log.lines.withLock { $0.append("\(event.level) \(event.message) \(all)") }
    }
  }
}
