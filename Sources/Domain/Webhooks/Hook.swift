import Foundation

/// A webhook as set: where events go, which fences feed it, and how hard to try.
public struct Hook: Sendable, Equatable, Codable {
  public var name: String
  /// Checked by `HookAddressRules` when set, and its host again before each connection.
  public var url: String
  /// A glob over fence names (Redis's): one hook serves any number of fences.
  public var fences: String
  /// The HMAC-SHA256 key of the signature header; made by the server.
  public var secret: String
  /// Tries in all, the first included, before an event goes to the dead letters.
  public var attempts: Int
  /// The wait after the first failure, doubled after each further one (with jitter), up to
  /// `HookRunner.longestWait`.
  public var backoffMilliseconds: Int
  /// The longest one try may take, connection included.
  public var timeoutMilliseconds: Int
  /// Requests in flight at once.
  public var concurrency: Int
  /// Events one request may carry: 1, one event a POST (Stripe's way); more, the events
  /// waiting go together, as `{"events":[…]}`, for a receiver that takes many.
  public var batch: Int

  public init(
    name: String, url: String, fences: String, secret: String = Hook.newSecret(),
    attempts: Int = 10, backoffMilliseconds: Int = 1_000, timeoutMilliseconds: Int = 5_000,
    concurrency: Int = 8, batch: Int = 1
  ) {
    self.name = name
    self.url = url
    self.fences = fences
    self.secret = secret
    self.attempts = attempts
    self.backoffMilliseconds = backoffMilliseconds
    self.timeoutMilliseconds = timeoutMilliseconds
    self.concurrency = concurrency
    self.batch = batch
  }

  /// `whsec_` and 32 random bytes in base64, as Stripe's signing secrets look.
  public static func newSecret() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return "whsec_" + Data(bytes).base64EncodedString()
  }

  /// The bounds a hook's options must keep.
  public static let attemptsRange = 1...50
  public static let backoffRange = 10...3_600_000
  public static let timeoutRange = 100...60_000
  public static let concurrencyRange = 1...64
  public static let batchRange = 1...1_000
}
