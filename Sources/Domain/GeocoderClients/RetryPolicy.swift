/// When and how long to wait before asking again after a transient failure.
public struct RetryPolicy: Sendable {
  /// Attempts in all, the first included; 1 never retries.
  public var maxAttempts: Int
  /// The wait after the first failure, doubled after each further one, up to `maxDelay`.
  public var baseDelay: Duration
  public var maxDelay: Duration
  /// A Retry-After longer than this is not waited for: the call fails with the 429.
  public var maxRetryAfter: Duration

  public init(
    maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(500),
    maxDelay: Duration = .seconds(30),
    maxRetryAfter: Duration = .seconds(120)
  ) {
    precondition(maxAttempts >= 1)
    self.maxAttempts = maxAttempts
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.maxRetryAfter = maxRetryAfter
  }

  public static let none = RetryPolicy(maxAttempts: 1)

  /// Exponential backoff with "equal jitter": half the doubled delay, plus a random part of up
  /// to the other half, so that clients failing together do not retry together.
  public func delay(afterFailure failures: Int) -> Duration {
    let exponential = baseDelay.seconds * Double(1 << min(failures - 1, 30))
    let capped = min(maxDelay.seconds, exponential)
    return .seconds(capped / 2 + Double.random(in: 0...(capped / 2)))
  }
}
