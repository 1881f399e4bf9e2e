/// Why a geocoder service failed to answer. `isTransient` says which are worth a retry.
public enum GeocoderServiceError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No complete answer within the timeout.
  case timeout(host: String)
  /// Connection refused, reset, or the name does not resolve.
  case unreachable(host: String, reason: String)
  /// An HTTP error status; `retryAfter` from a 429's or 503's Retry-After, in seconds.
  case http(host: String, status: Int, retryAfter: Double?, message: String)
  /// A body that is not the JSON the provider documents (garbage, truncated).
  case badResponse(host: String, reason: String)
  /// The circuit breaker is open: the host failed too often lately; no request was sent.
  case circuitOpen(host: String, retryInSeconds: Double)

  /// Timeouts, unreachable hosts, 429 and 5xx: what may succeed if asked again later.
  public var isTransient: Bool {
    switch self {
    case .timeout, .unreachable: return true
    case .http(_, let status, _, _): return status == 429 || (500...599).contains(status)
    case .badResponse, .circuitOpen: return false
    }
  }

  /// Whether the service, rather than our request, is at fault: what the circuit breaker counts.
  var isServiceFailure: Bool {
    switch self {
    case .badResponse: return true
    case .circuitOpen: return false
    default: return isTransient
    }
  }

  public var description: String {
    switch self {
    case .timeout(let host): return "geocoder \(host) did not answer in time"
    case .unreachable(let host, let reason): return "geocoder \(host) is unreachable: \(reason)"
    case .http(let host, let status, _, let message):
      return "geocoder \(host) answered HTTP \(status)" + (message.isEmpty ? "" : ": \(message)")
    case .badResponse(let host, let reason):
      return "geocoder \(host) sent an unreadable answer: \(reason)"
    case .circuitOpen(let host, let seconds):
      return "geocoder \(host) failed repeatedly; not asking it again for "
        + "\(Int(seconds.rounded(.up))) s"
    }
  }
}
