import RateLimits

/// Why an account operation was refused, and `reason`, its words (the doors add their error
/// codes, `ErrorLines`).
public enum AccountError: Error, Sendable, Equatable {
  /// A field's value is not acceptable (`INVALID <field>: <reason>`).
  case invalid(field: String, reason: String)
  /// Wrong email or password: never says which, nor whether the email has an account.
  case wrongCredentials
  /// A session or reset token that is unknown, used or expired.
  case invalidToken
  /// No account with that id (the admin's commands).
  case notFound
  /// Too many sign-ins are being checked at once.
  case busy
  /// A limit per address, email or account was reached (`LIMIT <what>, retry after N s`).
  case limited(LimitExceeded)
  /// The store did not make the change durable.
  case notPersisted(String)
  /// Sign-in with that provider's ID tokens is not set up on this server.
  case notConfigured(provider: String)
  /// An ID token failed a check; which one is logged, never told.
  case idTokenRefused
  /// The provider's keys cannot be had just now.
  case idTokenKeysUnavailable

  public var reason: String {
    switch self {
    case .invalid(_, let reason): reason
    case .wrongCredentials: "invalid username-password pair or user is disabled."
    case .invalidToken: "unknown, used or expired"
    case .notFound: "no such account"
    case .busy: "too many sign-ins in progress, try again shortly"
    case .limited(let limit): "\(limit.what), retry after \(limit.retryAfter) s"
    case .notPersisted(let why): "write not persisted: \(why)"
    case .notConfigured(let provider):
      "sign-in with \(provider) ID tokens is not configured on this server"
    case .idTokenRefused: "invalid ID token"
    case .idTokenKeysUnavailable:
      "cannot check ID tokens now (provider keys unavailable), try again"
    }
  }
}
