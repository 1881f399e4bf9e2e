/// The HTTP side's bounds on connections (`serve --http-…` flags; docs/HTTP.md, "Limits"), so
/// slow or idle clients cannot hold the server's connections or the process's descriptors.
public struct HTTPLimits: Sendable {
  /// A request head must be whole this long after the connection opens, or after the first byte
  /// of the next request on a kept-alive one (nil: no limit).
  public var headerTimeout: Duration? = .seconds(10)
  /// A connection with no request in progress is closed after this long (nil: never).
  public var idleTimeout: Duration? = .seconds(60)
  /// Connections served at once, from all clients.
  public var maxConnections = 1024
  /// Connections served at once from one IP address.
  public var maxConnectionsPerAddress = 64
  /// Descriptors HTTP leaves to RESP and the store: HTTP connections stop at the descriptor
  /// limit (`RLIMIT_NOFILE`) less those open when the server starts, less these.
  public var reservedDescriptors = 128

  public init() {}
}
