/// Where a domain module publishes what its subscribers hear: a channel's name and a text
/// message (JSON, by convention). The server delivers it to the connections subscribed to the
/// channel, as Redis's pub/sub does; the module knows nothing of RESP or of connections.
public protocol Notifier: Sendable {
  /// Hands `message` to everyone subscribed to `channel` now; returns at once, from any thread.
  func publish(_ message: String, to channel: String)
}

/// A notifier nobody hears: for a module run without a server (tests, tools).
public struct SilentNotifier: Notifier {
  public init() {}
  public func publish(_ message: String, to channel: String) {}
}
