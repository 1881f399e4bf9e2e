import DomainSupport
import Foundation
import JWTKit
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One provider's public keys, fetched from its JWKS and cached. They are fetched again when
/// the cache is older than `maximumAge`, or when a token names a key id the cache lacks (keys
/// rotate), but not more often than every `minimumRefetchInterval`, so that tokens with made-up
/// key ids cannot make us hammer the provider. A failed fetch keeps the keys we had.
actor ProviderKeys {
  struct Policy: Sendable {
    var minimumRefetchInterval: Double
    var maximumAge: Double
    var fetchTimeout: Double
  }

  private let source: IdentityProvider.KeySource
  private let policy: Policy
  private let logger: Logger
  private var collection = JWTKeyCollection()
  private var byID: [String: JWK] = [:]
  private var fetchedAt: Date?
  private var attemptedAt: Date?
  private var fetching: Task<Void, Never>?

  init(source: IdentityProvider.KeySource, policy: Policy, logger: Logger) {
    self.source = source
    self.policy = policy
    self.logger = logger
  }

  /// The collection that holds the key `kid`, and that key; nil when the provider has none by
  /// that id even after a refetch.
  func key(_ kid: String) async throws(IdentityTokenError) -> (JWTKeyCollection, JWK)? {
    let now = Date()
    let stale = fetchedAt.map { now.timeIntervalSince($0) > policy.maximumAge } ?? true
    let mayFetch =
      attemptedAt.map { now.timeIntervalSince($0) >= policy.minimumRefetchInterval } ?? true
    if (stale || byID[kid] == nil) && (mayFetch || fetching != nil) { await refresh() }
    if fetchedAt == nil {
      throw .keysUnavailable("no keys could be fetched from \(source)")
    }
    return byID[kid].map { (collection, $0) }
  }

  /// One fetch at a time: concurrent callers wait for the same one.
  private func refresh() async {
    if let fetching { return await fetching.value }
    attemptedAt = Date()
    let task = Task(executorPreference: DispatchTaskExecutor.shared) { await self.load() }
    fetching = task
    await task.value
    fetching = nil
  }

  private func load() async {
    do {
      let data = try await Self.read(source, timeout: policy.fetchTimeout)
      let jwks = try JSONDecoder().decode(JWKS.self, from: data)
      let fresh = JWTKeyCollection()
      var byID: [String: JWK] = [:]
      for jwk in jwks.keys {
        guard let kid = jwk.keyIdentifier?.string else { continue }
        do {
          try await fresh.add(jwk: jwk)
          byID[kid] = jwk
        } catch {
          logger.warning("ID token key skipped", metadata: ["kid": "\(kid)", "error": "\(error)"])
        }
      }
      // A token whose kid is not in the set must not fall back to some default key.
      await fresh.clearDefault()
      collection = fresh
      self.byID = byID
      fetchedAt = Date()
      logger.info(
        "ID token keys loaded", metadata: ["source": "\(source)", "keys": "\(byID.count)"])
    } catch {
      logger.warning(
        "cannot load ID token keys", metadata: ["source": "\(source)", "error": "\(error)"])
    }
  }

  private static func read(
    _ source: IdentityProvider.KeySource, timeout: Double
  ) async throws -> Data {
    switch source {
    case .file(let path):
      return try Data(contentsOf: URL(fileURLWithPath: path))
    case .url(let url):
      var request = URLRequest(url: url, timeoutInterval: timeout)
      request.setValue("application/json", forHTTPHeaderField: "Accept")
      // The completion-handler form: it calls back on URLSession's own queue, where the async
      // form needs a thread of Swift's cooperative pool.
      return try await withCheckedThrowingContinuation { continuation in
        URLSession.shared.dataTask(with: request) { data, response, error in
          if let error { return continuation.resume(throwing: error) }
          guard let data, (response as? HTTPURLResponse)?.statusCode == 200 else {
            return continuation.resume(throwing: URLError(.badServerResponse))
          }
          continuation.resume(returning: data)
        }.resume()
      }
    }
  }
}
