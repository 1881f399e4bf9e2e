import Commands
import DomainSupport
import NIOCore

/// What domain modules publish, delivered as Redis's pub/sub messages.
public struct PubSubNotifier: Notifier {
  let hub: PubSubHub

  public init(hub: PubSubHub) { self.hub = hub }

  public func publish(_ message: String, to channel: String) {
    hub.publish(ByteBuffer(string: message), to: Array(channel.utf8))
  }
}
