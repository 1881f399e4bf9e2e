import DomainSupport
import Foundation

/// How a client reaches its service: the base URL, who we are, how long to wait.
public struct ServiceConfiguration: Sendable {
  /// E.g. http://127.0.0.1:8088 or https://nominatim.openstreetmap.org (a path prefix is kept).
  public var baseURL: URL
  /// Public services require one naming the application and a contact.
  public var userAgent: String
  /// Nominatim's `email` parameter: whom its operators contact about heavy use.
  public var email: String?
  /// Per request, connection to last byte.
  public var timeout: Duration
  public var transport: any HTTPTransport

  public static let defaultUserAgent =
    "CardAtlas/\(cardAtlasVersion) (+https://github.com/cardatlas/cardatlas)"

  public init(
    baseURL: URL, userAgent: String = ServiceConfiguration.defaultUserAgent, email: String? = nil,
    timeout: Duration = .seconds(10), transport: any HTTPTransport = URLSessionTransport()
  ) {
    self.baseURL = baseURL
    self.userAgent = userAgent
    self.email = email
    self.timeout = timeout
    self.transport = transport
  }

  /// The host and port requests go to: what rate limits and circuit breakers are kept per.
  public var hostKey: String {
    let host = baseURL.host ?? baseURL.absoluteString
    return baseURL.port.map { "\(host):\($0)" } ?? host
  }

  /// GETs `path` with `query` (nil values left out) and returns the body of a 2xx answer;
  /// throws `.http` for any other status, with Retry-After parsed.
  func get(_ path: String, _ query: [(String, String?)]) async throws -> Data {
    var components = URLComponents(
      url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
    components.queryItems = query.compactMap { name, value in
      value.map { URLQueryItem(name: name, value: $0) }
    }
    // "+" is legal in a query but many servers read it as a space: spell it out.
    components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(
      of: "+", with: "%2B")
    let response = try await transport.get(
      components.url!, headers: ["User-Agent": userAgent, "Accept": "application/json"],
      timeout: timeout)
    guard (200...299).contains(response.status) else {
      throw GeocoderServiceError.http(
        host: hostKey, status: response.status,
        retryAfter: response.headers["retry-after"].flatMap { RetryAfter.seconds($0) },
        message: Self.errorMessage(response.body))
    }
    return response.body
  }

  /// The provider's own words from an error body: Nominatim's `error.message` or `error`,
  /// Pelias's `geocoding.errors`, else the start of the body.
  static func errorMessage(_ body: Data) -> String {
    if let json = try? JSONDecoder().decode(JSON.self, from: body) {
      if let message = json["error"]?["message"]?.text ?? json["error"]?.text
        ?? json["message"]?.text
      {
        return message
      }
      if let errors = json["geocoding"]?["errors"]?.array?.compactMap(\.text), !errors.isEmpty {
        return errors.joined(separator: "; ")
      }
    }
    return String(decoding: body.prefix(200), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// The version User-Agents name.
public let cardAtlasVersion = "0.1"
