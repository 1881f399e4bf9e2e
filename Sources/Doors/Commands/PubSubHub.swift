import Keyspace
import NIOConcurrencyHelpers
import NIOCore
import RESP

/// Redis's pub/sub bookkeeping: which connections hear which channels and patterns, and the
/// delivery of a published message to them. Each connection registers where its messages go
/// (`connect`); the server's connections write them in their place among their replies.
public final class PubSubHub: Sendable {
  /// A message for one connection: `pattern` is the subscription it matched, nil for the
  /// channel's own.
  public struct Message: Sendable {
    public let pattern: Bytes?
    public let channel: Bytes
    public let payload: ByteBuffer

    /// As the subscriber receives it: a push in RESP3, an array in RESP2.
    public var frame: RESPValue {
      var items: [RESPValue] = [
        .bulkString(ByteBuffer(string: pattern == nil ? "message" : "pmessage"))
      ]
      if let pattern { items.append(.bulkString(ByteBuffer(bytes: pattern))) }
      items += [.bulkString(ByteBuffer(bytes: channel)), .bulkString(payload)]
      return .push(items)
    }
  }

  public typealias Sink = @Sendable (Message) -> Void

  private struct Subscriber {
    let sink: Sink
    var channels: Set<Bytes> = []
    var patterns: Set<Bytes> = []
    var count: Int { channels.count + patterns.count }
  }

  private struct State {
    var subscribers: [Int: Subscriber] = [:]
    var channels: [Bytes: Set<Int>] = [:]
    var patterns: [Bytes: Set<Int>] = [:]
  }

  // A pthread lock (NIO's), not Synchronization's Mutex: its futex is invisible to
  // ThreadSanitizer, which then reports every access under it as a race.
  private let state = NIOLockedValueBox(State())

  /// Where a message published here goes to reach the other nodes' subscribers too.
  public struct Relay: Sendable {
    /// The largest message it carries, in bytes; PUBLISH refuses a larger one.
    public let maximumBytes: Int
    public let send: @Sendable (_ channel: Bytes, _ payload: ByteBuffer) -> Void

    public init(
      maximumBytes: Int, send: @escaping @Sendable (_ channel: Bytes, _ payload: ByteBuffer) -> Void
    ) {
      self.maximumBytes = maximumBytes
      self.send = send
    }
  }

  private let relay = NIOLockedValueBox<Relay?>(nil)

  public init() {}

  /// From now on, what is published here also goes to `relay` (nodes sharing a database).
  public func relay(to relay: Relay) {
    self.relay.withLockedValue { $0 = relay }
  }

  /// The largest message `publish` takes, when a relay bounds it.
  public var maximumMessageBytes: Int? { relay.withLockedValue { $0?.maximumBytes } }

  /// A connection opened: its messages go to `sink`.
  public func connect(_ id: Int, sink: @escaping Sink) {
    state.withLockedValue { $0.subscribers[id] = Subscriber(sink: sink) }
  }

  /// A connection closed: it hears nothing more.
  public func disconnect(_ id: Int) {
    state.withLockedValue { s in
      guard let subscriber = s.subscribers.removeValue(forKey: id) else { return }
      for channel in subscriber.channels { Self.remove(id, channel, from: &s.channels) }
      for pattern in subscriber.patterns { Self.remove(id, pattern, from: &s.patterns) }
    }
  }

  /// Subscribes the connection; returns its count of subscriptions (channels and patterns).
  public func subscribe(_ id: Int, to name: Bytes, pattern: Bool) -> Int {
    state.withLockedValue { s in
      guard var subscriber = s.subscribers[id] else { return 0 }
      if pattern {
        if subscriber.patterns.insert(name).inserted { s.patterns[name, default: []].insert(id) }
      } else {
        if subscriber.channels.insert(name).inserted { s.channels[name, default: []].insert(id) }
      }
      s.subscribers[id] = subscriber
      return subscriber.count
    }
  }

  /// Unsubscribes the connection (a name it does not hear changes nothing); returns its count.
  public func unsubscribe(_ id: Int, from name: Bytes, pattern: Bool) -> Int {
    state.withLockedValue { s in
      guard var subscriber = s.subscribers[id] else { return 0 }
      if pattern {
        if subscriber.patterns.remove(name) != nil { Self.remove(id, name, from: &s.patterns) }
      } else {
        if subscriber.channels.remove(name) != nil { Self.remove(id, name, from: &s.channels) }
      }
      s.subscribers[id] = subscriber
      return subscriber.count
    }
  }

  /// The connection's channels or patterns, in byte order.
  public func subscriptions(of id: Int, pattern: Bool) -> [Bytes] {
    state.withLockedValue { s in
      let subscriber = s.subscribers[id]
      return (pattern ? subscriber?.patterns : subscriber?.channels).map {
        $0.sorted { $0.lexicographicallyPrecedes($1) }
      } ?? []
    }
  }

  /// Whether the connection still hears what `message` came through: a message handed over
  /// before an UNSUBSCRIBE must not arrive after it.
  public func hears(_ id: Int, _ message: Message) -> Bool {
    state.withLockedValue { s in
      guard let subscriber = s.subscribers[id] else { return false }
      return message.pattern.map { subscriber.patterns.contains($0) }
        ?? subscriber.channels.contains(message.channel)
    }
  }

  /// Hands the message to every connection subscribed to the channel or to a pattern that
  /// matches it (once per subscription, as Redis), and to the relay, if any; returns how many
  /// connections here it was handed to (as Redis Cluster counts a node's own).
  @discardableResult
  public func publish(_ payload: ByteBuffer, to channel: Bytes) -> Int {
    relay.withLockedValue { $0 }?.send(channel, payload)
    return deliver(payload, to: channel)
  }

  /// Hands a message to this node's subscribers only (one another node published).
  @discardableResult
  public func deliver(_ payload: ByteBuffer, to channel: Bytes) -> Int {
    let targets = state.withLockedValue { s -> [(Sink, Message)] in
      var targets: [(Sink, Message)] = []
      for id in s.channels[channel] ?? [] {
        if let sink = s.subscribers[id]?.sink {
          targets.append((sink, Message(pattern: nil, channel: channel, payload: payload)))
        }
      }
      for (pattern, ids) in s.patterns where globMatches(pattern, channel) {
        for id in ids {
          if let sink = s.subscribers[id]?.sink {
            targets.append((sink, Message(pattern: pattern, channel: channel, payload: payload)))
          }
        }
      }
      return targets
    }
    for (sink, message) in targets { sink(message) }
    return targets.count
  }

  /// Channels with at least one subscriber, those matching `pattern` if given.
  public func channels(matching pattern: Bytes?) -> [Bytes] {
    state.withLockedValue { s in
      s.channels.keys.filter { pattern == nil || globMatches(pattern!, $0) }
    }
  }

  public func subscriberCount(_ channel: Bytes) -> Int {
    state.withLockedValue { $0.channels[channel]?.count ?? 0 }
  }

  /// Distinct patterns subscribed to, by anyone.
  public var patternCount: Int { state.withLockedValue { $0.patterns.count } }

  /// The connection's subscriptions, for CLIENT LIST.
  public func counts(of id: Int) -> (channels: Int, patterns: Int) {
    state.withLockedValue { s in
      (s.subscribers[id]?.channels.count ?? 0, s.subscribers[id]?.patterns.count ?? 0)
    }
  }

  /// Channels with at least one subscriber, for INFO.
  public var channelCount: Int { state.withLockedValue { $0.channels.count } }

  private static func remove(_ id: Int, _ name: Bytes, from index: inout [Bytes: Set<Int>]) {
    index[name]?.remove(id)
    if index[name]?.isEmpty == true { index[name] = nil }
  }
}
