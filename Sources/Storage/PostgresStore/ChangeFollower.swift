import Logging
import PostgresNIO
import Synchronization

/// Follows the change feed for one node: reads the rows after the last it applied, in order,
/// whenever a commit notifies (LISTEN) and at least every `pollInterval` (a notification is lost
/// with its connection). A lost connection is reopened, to whichever host is primary then, and
/// reading resumes after the last row applied: no row is missed or applied twice.
///
/// It reports how far it has applied (`cardatlas_nodes`), so the feed keeps what it has not
/// (`FeedRetention`). Should rows it had not applied be gone all the same (it was silent past
/// the nodes' timeout), it applies nothing more and calls `fellBehind`.
public final class ChangeFollower: Sendable {
  private let connector: PostgresConnector
  private let node: String
  private let logger: Logger
  private let apply: @Sendable (FeedEntry) -> Void
  private let fellBehind: @Sendable () -> Void
  private let applied: Atomic<Int64>
  private let connected = Atomic<Bool>(false)
  /// When it last read the feed to its end (`ContinuousClock` nanoseconds since `origin`).
  private let caughtUpAt = Atomic<Int64>(0)
  private let origin = ContinuousClock.now
  private let wakeup = Wakeup()
  private let task = Mutex<Task<Void, Never>?>(nil)
  private let interjected = Mutex<[@Sendable () async -> Void]>([])
  static let pollInterval = Duration.milliseconds(250)
  static let readLimit = 2048
  static let readTimeout = Duration.seconds(5)
  static let reportInterval = Duration.seconds(1)

  init(
    connector: PostgresConnector, node: String, after position: Int64, logger: Logger,
    apply: @escaping @Sendable (FeedEntry) -> Void,
    fellBehind: @escaping @Sendable () -> Void
  ) {
    self.connector = connector
    self.node = node
    self.logger = logger
    self.apply = apply
    self.fellBehind = fellBehind
    applied = Atomic(position)
    let task = Task(executorPreference: connector.executor) { [self] in await run() }
    self.task.withLock { $0 = task }
  }

  /// The feed position of the last row applied.
  public var position: Int64 { applied.load(ordering: .acquiring) }
  /// Whether the follower holds a connection now.
  public var isConnected: Bool { connected.load(ordering: .relaxed) }
  /// How long since it last read the feed to its end: while it keeps up, under `pollInterval`.
  public var sinceCaughtUp: Duration {
    (ContinuousClock.now - origin) - .nanoseconds(caughtUpAt.load(ordering: .relaxed))
  }

  /// Stops following; returns once the last row being applied is done. The node then holds
  /// no feed rows back.
  public func stop() async {
    let running = task.withLock { $0 }
    running?.cancel()
    wakeup.signal()
    await running?.value
    guard let connection = try? await connector.primary() else { return }
    try? await QueryDeadline.within(Self.readTimeout, closing: connection, on: connector.executor) {
      [node, logger] in
      try await FeedRetention.leave(node: node, on: connection, logger: logger)
    }
    try? await connection.close()
  }

  /// Runs `work` between two reads of the feed, in the follower's order: what it applies to
  /// the node comes after every row applied before it and before every row applied after.
  public func interject(_ work: @escaping @Sendable () async -> Void) {
    interjected.withLock { $0.append(work) }
    wakeup.signal()
  }

  /// Returns true once every row up to `position` is applied, false after `timeout`.
  public func waitUntilApplied(_ position: Int64, timeout: Duration = .seconds(10)) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while self.position < position {
      guard ContinuousClock.now < deadline else { return false }
      wakeup.signal()
      try? await Task.sleep(for: .milliseconds(1))
    }
    return true
  }

  private func run() async {
    while !Task.isCancelled {
      do {
        let connection = try await connector.primary()
        connected.store(true, ordering: .relaxed)
        defer { connected.store(false, ordering: .relaxed) }
        let behind: Bool
        do {
          behind = try await listen(on: connection)
        } catch {
          connection.discard()
          throw error
        }
        try? await connection.close()
        if behind {
          logger.critical(
            "change feed: rows this node had not applied were pruned; it must load afresh",
            metadata: ["position": "\(position)"])
          return fellBehind()
        }
      } catch {
        guard !Task.isCancelled else { return }
        logger.warning(
          "change feed: connection lost, reconnecting",
          metadata: ["error": "\(String(reflecting: error))"])
        try? await Task.sleep(for: .milliseconds(100))
      }
    }
  }

  /// Reads on `connection`, woken by its notifications, until cancelled (false), it fails, or
  /// it finds it fell behind (true).
  private func listen(on connection: PostgresConnection) async throws -> Bool {
    try await connection.whileListening(
      to: ChangeFeed.channel, timeout: Self.readTimeout, on: connector.executor,
      notified: { [wakeup] _ in wakeup.signal() },
      running: { try await read(on: connection) })
  }

  /// Applies rows until cancelled (false); throws when the connection fails; true when rows
  /// it had not applied are gone.
  private func read(on connection: PostgresConnection) async throws -> Bool {
    var reported: ContinuousClock.Instant?
    while !Task.isCancelled {
      // A connection the server closed while this slept: a query on it may never answer.
      guard !connection.isClosed else { throw FeedError(description: "the connection closed") }
      for work in interjected.withLock({ list in
        defer { list = [] }
        return list
      }) {
        await work()
      }
      let after = position
      let entries = try await QueryDeadline.within(
        Self.readTimeout, closing: connection, on: connector.executor
      ) {
        [logger] in
        try await ChangeFeed.read(
          after: after, limit: Self.readLimit, on: connection, logger: logger)
      }
      // Ids have gaps of their own (a rolled-back commit's); past one, ask whether rows went.
      if let first = entries.first, first.position != after + 1 {
        let pruned = try await QueryDeadline.within(
          Self.readTimeout, closing: connection, on: connector.executor
        ) {
          [logger] in try await FeedRetention.prunedThrough(on: connection, logger: logger)
        }
        if pruned > after { return true }
      }
      for entry in entries {
        apply(entry)
        applied.store(entry.position, ordering: .releasing)
      }
      let now = ContinuousClock.now
      if reported.map({ now - $0 >= Self.reportInterval }) ?? true {
        let position = position
        try await QueryDeadline.within(
          Self.readTimeout, closing: connection, on: connector.executor
        ) {
          [node, logger] in
          try await FeedRetention.report(
            node: node, position: position, on: connection, logger: logger)
          // A writer that stopped between its COMMIT and giving its row an id: given here.
          if try await ChangeFeed.unsequenced(
            olderThan: Self.reportInterval, on: connection, logger: logger)
          {
            let given = try await ChangeFeed.sequence(on: connection, logger: logger)
            logger.notice("change feed: gave ids a writer left", metadata: ["rows": "\(given)"])
          }
        }
        reported = now
      }
      if entries.count < Self.readLimit {
        let since = (ContinuousClock.now - origin).components
        caughtUpAt.store(
          since.seconds * 1_000_000_000 + since.attoseconds / 1_000_000_000, ordering: .relaxed)
        await wakeup.wait(upTo: Self.pollInterval)
      }
    }
    return false
  }
}

/// A signal a follower sleeps on: set by a notification, a timer or a caller.
final class Wakeup: Sendable {
  private struct State {
    var pending = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Mutex(State())

  func signal() {
    let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
      guard let waiter = s.waiter else {
        s.pending = true
        return nil
      }
      s.waiter = nil
      return waiter
    }
    waiter?.resume()
  }

  /// Returns at the next signal (or at once if one came since the last wait), or after `timeout`.
  func wait(upTo timeout: Duration) async {
    let timer = Task { [self] in
      try? await Task.sleep(for: timeout)
      // Cancelled: the wait ended by a signal, and a late one would end the next wait early.
      guard !Task.isCancelled else { return }
      signal()
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { s -> Bool in
        if s.pending {
          s.pending = false
          return true
        }
        s.waiter = continuation
        return false
      }
      if now { continuation.resume() }
    }
    timer.cancel()
  }
}
