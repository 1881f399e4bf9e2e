import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a geocoder service answered: the status, the headers that matter, the body.
public struct HTTPResponse: Sendable {
  public var status: Int
  /// Header names lower-cased.
  public var headers: [String: String]
  public var body: Data

  public init(status: Int, headers: [String: String] = [:], body: Data) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// One GET per call: the clients' only way to the network, so that tests can count or refuse
/// requests. Throws `GeocoderServiceError.timeout` or `.unreachable` for transport failures.
public protocol HTTPTransport: Sendable {
  func get(_ url: URL, headers: [String: String], timeout: Duration) async throws -> HTTPResponse
}

/// HTTP through FoundationNetworking's URLSession (libcurl on Linux). No cookies, no cache (our
/// cache is `GeocodeCache`), redirects followed by URLSession.
public struct URLSessionTransport: HTTPTransport {
  private let session: URLSession

  public init() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    session = URLSession(configuration: configuration)
  }

  public func get(_ url: URL, headers: [String: String], timeout: Duration) async throws
    -> HTTPResponse
  {
    var request = URLRequest(url: url)
    request.httpMethod = "GET"
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let seconds = timeout.seconds
    // URLRequest's timeout is an idle timeout (a server that dribbles bytes slowly never trips
    // it), and swift-corelibs-foundation truncates it to whole seconds (0.5 times out at once).
    // The deadline below bounds the whole exchange; this is only a backstop behind it.
    request.timeoutInterval = seconds.rounded(.up) + 1
    // Named as ServiceConfiguration.hostKey names it, so that every error names one host.
    let host =
      url.host.map { name in url.port.map { "\(name):\($0)" } ?? name } ?? url.absoluteString
    let (data, response): (Data, URLResponse)
    do {
      (data, response) = try await withDeadline(timeout, host: host) { [session, request] in
        try await session.data(for: request)
      }
    } catch let error as URLError {
      switch error.code {
      case .timedOut: throw GeocoderServiceError.timeout(host: host)
      default:
        throw GeocoderServiceError.unreachable(host: host, reason: error.localizedDescription)
      }
    }
    guard let http = response as? HTTPURLResponse else {
      throw GeocoderServiceError.badResponse(host: host, reason: "not an HTTP response")
    }
    var names: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
      if let key = key as? String, let value = value as? String { names[key.lowercased()] = value }
    }
    return HTTPResponse(status: http.statusCode, headers: names, body: data)
  }
}

/// Runs `body`, throwing `.timeout` when it has not finished after `limit` (and cancelling it).
func withDeadline<T: Sendable>(
  _ limit: Duration, host: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: limit)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let value = first else {
      throw GeocoderServiceError.timeout(host: host)
    }
    return value
  }
}

extension Duration {
  var seconds: Double {
    let (s, attoseconds) = components
    return Double(s) + Double(attoseconds) / 1e18
  }
}
