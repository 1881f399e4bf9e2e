import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Pub/sub across the nodes: what is published on one node reaches the other nodes'
/// subscribers through PostgreSQL's NOTIFY, on one connection per node that both listens and
/// sends. Like Redis's pub/sub it is fire-and-forget: a message is delivered to the nodes
/// connected when it is sent, in the order one node published them; while the database is
/// unreachable, up to `backlog` messages wait and older ones are dropped (and counted).
public final class PostgresPubSub: Sendable {
  /// What a message is: a client's PUBLISH, or the nodes' own news. Clients choose only their
  /// channel, never the topic, so nothing they publish is read as the nodes' own.
  public enum Topic: String, Sendable {
    case clients = "c"
    /// The accounts' news (password checks' outcomes, events their limits counted) for the
    /// other nodes' throttle and limits.
    case accounts = "a"
    /// People's presences (cells, never points) and the searches their limits counted.
    case people = "p"
    /// Look-ups of cards by share code, for the other nodes' limits.
    case cards = "k"
    /// Pins added and opened, for the other nodes' limits and the openers' travel.
    case pins = "i"
    /// Uploads counted, for the other nodes' limit.
    case assets = "u"
    /// Venues created, for the other nodes' limit.
    case venues = "v"
  }

  static let channel = "cardatlas_pubsub"
  /// NOTIFY takes under 8,000 bytes of text: the node's id, the channel and the message in
  /// base64 (4 characters for 3 bytes) fit within that.
  public static let maximumBytes = 5_800
  static let backlog = 10_000
  static let keepAlive = Duration.seconds(5)

  private let connector: PostgresConnector
  private let node: String
  private let logger: Logger
  private let deliver: @Sendable (Topic, _ channel: [UInt8], _ message: [UInt8]) -> Void
  private let onListening: @Sendable (PostgresPubSub) -> Void
  private let outbox = Mutex<[String]>([])
  private let dropped = Atomic<Int>(0)
  private let wakeup = Wakeup()
  private let task = Mutex<Task<Void, Never>?>(nil)

  /// `listening` runs each time the node listens again (first, and after a lost connection):
  /// what the other nodes sent meanwhile never reached it.
  init(
    connector: PostgresConnector, node: String, logger: Logger,
    listening: @escaping @Sendable (PostgresPubSub) -> Void,
    deliver: @escaping @Sendable (Topic, _ channel: [UInt8], _ message: [UInt8]) -> Void
  ) {
    self.connector = connector
    self.node = node
    self.logger = logger
    onListening = listening
    self.deliver = deliver
    let task = Task(executorPreference: connector.executor) { [self] in await run() }
    self.task.withLock { $0 = task }
  }

  /// Sends a message to the other nodes (`channel.count + message.count` at most
  /// `maximumBytes`; the caller refuses larger ones).
  public func publish(_ topic: Topic = .clients, channel: [UInt8], message: [UInt8]) {
    let payload =
      [
        node, topic.rawValue, Data(channel).base64EncodedString(),
        Data(message).base64EncodedString(),
      ]
      .joined(separator: " ")
    let overflow = outbox.withLock { outbox in
      outbox.append(payload)
      let overflow = max(0, outbox.count - Self.backlog)
      outbox.removeFirst(overflow)
      return overflow
    }
    if overflow > 0 { dropped.add(overflow, ordering: .relaxed) }
    wakeup.signal()
  }

  /// Messages dropped while the database could not take them.
  public var droppedCount: Int { dropped.load(ordering: .relaxed) }

  func close() async {
    let running = task.withLock { $0 }
    running?.cancel()
    wakeup.signal()
    await running?.value
  }

  private func run() async {
    while !Task.isCancelled {
      do {
        let connection = try await connector.primary()
        do {
          try await serve(on: connection)
        } catch {
          connection.discard()
          throw error
        }
        try? await connection.close()
      } catch {
        guard !Task.isCancelled else { return }
        logger.warning(
          "pub/sub: connection lost, reconnecting",
          metadata: ["error": "\(String(reflecting: error))"])
        try? await Task.sleep(for: .milliseconds(100))
      }
    }
  }

  /// Listens, and sends what is published, until cancelled or the connection fails.
  private func serve(on connection: PostgresConnection) async throws {
    try await connection.whileListening(
      to: Self.channel, timeout: .seconds(5), on: connector.executor,
      notified: { [self] notification in received(notification.payload) },
      running: { try await publish(on: connection) })
  }

  /// Sends what is published, until cancelled or the connection fails.
  private func publish(on connection: PostgresConnection) async throws {
    onListening(self)
    while !Task.isCancelled {
      guard !connection.isClosed else { throw FeedError(description: "the connection closed") }
      let payloads = outbox.withLock { outbox in
        defer { outbox = [] }
        return outbox
      }
      // Sent in one statement, in order; with nothing to send, a query that finds a dead
      // connection.
      try await QueryDeadline.within(.seconds(5), closing: connection, on: connector.executor) {
        [logger] in
        if payloads.isEmpty {
          try await connection.run("SELECT 1", logger: logger)
        } else {
          try await connection.run(
            "SELECT pg_notify(\(Self.channel), p) FROM unnest(\(payloads)::text[]) AS p",
            logger: logger)
        }
      }
      if outbox.withLock({ $0.isEmpty }) { await wakeup.wait(upTo: Self.keepAlive) }
    }
  }

  private func received(_ payload: String) {
    let parts = payload.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] != Substring(node),
      let topic = Topic(rawValue: String(parts[1])),
      let channel = Data(base64Encoded: String(parts[2])),
      let message = Data(base64Encoded: String(parts[3]))
    else { return }
    deliver(topic, Array(channel), Array(message))
  }
}
