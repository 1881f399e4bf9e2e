import Logging
import RESP
import Store

/// How `cardatlas serve` runs. Every limit has a safe default and is a flag of `serve`.
public struct ServerConfiguration: Sendable {
  public var host = "127.0.0.1"
  public var port = 7878
  /// Where the store keeps its files.
  public var dataDirectory = "./var"
  /// The admin password: with it, everything but AUTH, HELLO and QUIT answers NOAUTH first.
  public var requirePassword: String?
  public var fsync = FsyncPolicy.always
  /// Loads the demo dataset into an empty store on start.
  public var demo = false
  /// Longest inline line, bulk string and array a client may send.
  public var limits = RESPLimits()
  /// Most connections at once; Redis's default.
  public var maxClients = 10_000
  /// Seconds a connection may stay silent before it is closed; 0 never closes one.
  public var idleTimeout = 600
  /// Event-loop threads; 0 means one per core.
  public var threads = 0

  public init() {}
}
