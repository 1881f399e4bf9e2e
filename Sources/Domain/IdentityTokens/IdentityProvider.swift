import Foundation

/// A provider whose ID tokens sign people in: who issues them, for which of our client ids,
/// and where its public keys are published.
public struct IdentityProvider: Sendable {
  /// Where a provider's keys (a JWKS document) come from.
  public enum KeySource: Sendable, Equatable {
    case url(URL)
    case file(String)

    /// An http(s) URL, or else a file path.
    public init(_ text: String) {
      if let url = URL(string: text), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https"
      {
        self = .url(url)
      } else {
        self = .file(text)
      }
    }
  }

  /// The name clients give (`SESSION.OPEN IDTOKEN <name> ...`), lower-case.
  public let name: String
  /// The `iss` values accepted.
  public let issuers: Set<String>
  /// Our client ids: a token's `aud` must name one.
  public let audiences: Set<String>
  public let keys: KeySource

  public init(name: String, issuers: Set<String>, audiences: Set<String>, keys: KeySource) {
    self.name = name
    self.issuers = issuers
    self.audiences = audiences
    self.keys = keys
  }

  /// Google's published keys.
  public static let googleKeys = KeySource.url(
    URL(string: "https://www.googleapis.com/oauth2/v3/certs")!)
  /// Apple's published keys.
  public static let appleKeys = KeySource.url(URL(string: "https://appleid.apple.com/auth/keys")!)

  /// Sign in with Google: its ID tokens name either form of its issuer.
  public static func google(clientIDs: Set<String>, keys: KeySource = googleKeys) -> Self {
    Self(
      name: "google", issuers: ["https://accounts.google.com", "accounts.google.com"],
      audiences: clientIDs, keys: keys)
  }

  /// Sign in with Apple; the client ids are the app's bundle id or the service id.
  public static func apple(clientIDs: Set<String>, keys: KeySource = appleKeys) -> Self {
    Self(
      name: "apple", issuers: ["https://appleid.apple.com"], audiences: clientIDs, keys: keys)
  }
}

/// Who an ID token says signed in, once every check has passed.
public struct VerifiedIdentity: Sendable, Equatable {
  public let provider: String
  /// The provider's stable id for the person (`sub`).
  public let subject: String
  /// Verified by the provider (`email_verified`).
  public let email: String
}

/// Why an ID token was not accepted. Clients see only that it was refused; the reason is logged.
public enum IdentityTokenError: Error, Sendable, Equatable {
  /// No provider of that name is configured.
  case notConfigured(String)
  /// The token failed a check: `reason` says which, for the log.
  case refused(reason: String)
  /// The provider's keys could not be had (none cached and the fetch failed).
  case keysUnavailable(String)
  /// Too many tokens are being checked at once; the caller may try again.
  case busy
}
