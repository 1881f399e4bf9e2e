/// A server to load: `host:port`, with an IPv6 host in brackets (`[::1]:6379`).
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
  public var host: String
  public var port: Int

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Parses `host:port` or `[v6-host]:port`.
  public init(parsing text: String) throws(LoadGenError) {
    let invalid = LoadGenError.invalidArgument("'\(text)' is not host:port (e.g. 127.0.0.1:6379)")
    guard let colon = text.lastIndex(of: ":") else { throw invalid }
    var host = Substring(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
    guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]),
      (1...65535).contains(port)
    else { throw invalid }
    self.init(host: String(host), port: port)
  }

  public var description: String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }
}

/// Why a load run could not be made or finished.
public enum LoadGenError: Error, Equatable, Sendable, CustomStringConvertible {
  case invalidArgument(String)
  /// The server could not be reached.
  case connectFailed(server: String, reason: String)
  /// A connection closed, or a reply could not be framed, before the run ended.
  case connectionFailed(server: String, reason: String)
  /// No reply arrived for this long while requests were outstanding.
  case stalled(server: String, seconds: Double, completed: Int)
  /// A setup command (loading the points, checking them) did not do what it should.
  case setupFailed(server: String, reason: String)

  public var description: String {
    switch self {
    case .invalidArgument(let text): return text
    case .connectFailed(let server, let reason): return "cannot connect to \(server): \(reason)"
    case .connectionFailed(let server, let reason):
      return "connection to \(server) failed: \(reason)"
    case .stalled(let server, let seconds, let completed):
      return "\(server) sent no reply for \(seconds) s (after \(completed) replies); giving up"
    case .setupFailed(let server, let reason): return "\(server): \(reason)"
    }
  }
}
