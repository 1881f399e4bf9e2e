import DomainSupport
import Foundation
import JWTKit
import Logging
import Synchronization

/// Checks providers' ID tokens: signature by one of the provider's published keys (RS256 or
/// ES256), issuer, audience, expiry, not-before and issue time within `leeway`, and a verified
/// email. Refusals say why in the log only.
public final class IdentityTokenVerifier: Sendable {
  public struct Configuration: Sendable {
    public var providers: [IdentityProvider]
    /// Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds.
    public var leeway: Double = 60
    /// A token with an unknown key id refetches the keys at most this often.
    public var minimumRefetchInterval: Double = 60
    /// Keys older than this are fetched again (providers rotate them every few weeks).
    public var maximumKeyAge: Double = 6 * 3_600
    public var fetchTimeout: Double = 10
    /// Checks under way at most; more answer `busy`, as password sign-ins past their queue do.
    public var maximumInFlight = 1_000

    public init(providers: [IdentityProvider]) { self.providers = providers }
  }

  /// The algorithms Google and Apple sign with; anything else (`none`, HMAC) is refused.
  static let algorithms: [String: JWK.KeyType] = ["RS256": .rsa, "ES256": .ecdsa]

  private let providers: [String: (IdentityProvider, ProviderKeys)]
  private let leeway: Double
  private let logger: Logger
  private let maximumInFlight: Int
  private let inFlight = Atomic<Int>(0)

  public init(_ configuration: Configuration, logger: Logger) {
    let policy = ProviderKeys.Policy(
      minimumRefetchInterval: configuration.minimumRefetchInterval,
      maximumAge: configuration.maximumKeyAge, fetchTimeout: configuration.fetchTimeout)
    var providers: [String: (IdentityProvider, ProviderKeys)] = [:]
    for provider in configuration.providers where !provider.audiences.isEmpty {
      providers[provider.name] = (
        provider, ProviderKeys(source: provider.keys, policy: policy, logger: logger)
      )
    }
    self.providers = providers
    leeway = configuration.leeway
    maximumInFlight = configuration.maximumInFlight
    self.logger = logger
  }

  public func isConfigured(_ provider: String) -> Bool { providers[provider] != nil }

  /// `verify`, off the caller's thread and off Swift's cooperative pool; `done` is called on
  /// one of Dispatch's threads.
  public func verify(
    provider: String, token: String,
    _ done: @escaping @Sendable (Result<VerifiedIdentity, IdentityTokenError>) -> Void
  ) {
    guard inFlight.add(1, ordering: .relaxed).newValue <= maximumInFlight else {
      inFlight.subtract(1, ordering: .relaxed)
      return done(.failure(.busy))
    }
    Task(executorPreference: DispatchTaskExecutor.shared) {
      defer { self.inFlight.subtract(1, ordering: .relaxed) }
      do throws(IdentityTokenError) {
        done(.success(try await self.verify(provider: provider, token: token)))
      } catch {
        done(.failure(error))
      }
    }
  }

  /// The identity a token proves, or why not.
  public func verify(
    provider name: String, token: String, now: Date = Date()
  ) async throws(IdentityTokenError) -> VerifiedIdentity {
    guard let (provider, keys) = providers[name] else { throw .notConfigured(name) }
    do {
      let identity = try await check(token, provider, keys, now)
      logger.info(
        "ID token accepted", metadata: ["provider": "\(name)", "sub": "\(identity.subject)"])
      return identity
    } catch {
      logger.notice("ID token refused", metadata: ["provider": "\(name)", "reason": "\(error)"])
      throw error
    }
  }

  private func check(
    _ token: String, _ provider: IdentityProvider, _ keys: ProviderKeys, _ now: Date
  ) async throws(IdentityTokenError) -> VerifiedIdentity {
    let header = try Self.header(token)
    guard let alg = header.alg, let keyType = Self.algorithms[alg] else {
      throw .refused(reason: "algorithm \(header.alg ?? "missing") not accepted")
    }
    guard let kid = header.kid else { throw .refused(reason: "no key id") }
    guard let (collection, jwk) = try await keys.key(kid) else {
      throw .refused(reason: "unknown key id \(kid)")
    }
    guard jwk.keyType == keyType, jwk.algorithm == nil || jwk.algorithm?.rawValue == alg else {
      throw .refused(reason: "key \(kid) is not an \(alg) key")
    }
    let claims: IdentityClaims
    do {
      claims = try await collection.verify(token, as: IdentityClaims.self)
    } catch {
      throw .refused(reason: "\(error)")
    }
    return try claims.identity(for: provider, now: now, leeway: leeway)
  }

  /// The header's `alg` and `kid`, read before any key is chosen.
  private static func header(_ token: String) throws(IdentityTokenError) -> (
    alg: String?, kid: String?
  ) {
    // Real ID tokens are 1-2 KB; a huge one is refused before any work on it.
    guard token.utf8.count <= 16 * 1024 else { throw .refused(reason: "longer than 16 KB") }
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let data = Data(base64URL: parts[0]),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { throw .refused(reason: "malformed token") }
    return (object["alg"] as? String, object["kid"] as? String)
  }
}

extension Data {
  /// Base64url without padding, as JWTs encode their parts.
  init?(base64URL text: Substring) {
    var base64 = text.replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    self.init(base64Encoded: base64)
  }
}
