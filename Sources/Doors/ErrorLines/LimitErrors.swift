import RateLimits

extension LimitExceeded {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String { "LIMIT \(what), retry after \(retryAfter) s" }
}
