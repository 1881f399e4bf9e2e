import Durability
import Logging
import PostgresNIO
import Synchronization

/// One node's group commit: the writes queued while a transaction runs go into the next one
/// together. Each command's writes run in a savepoint when one of them may fail on its own, so a
/// failing command rolls back only itself.
final class GroupWriter: Sendable {
  private struct Request: Sendable {
    let writes: [any DurableWrite]
    let completion: @Sendable (Result<Void, any Error>) -> Void

    var postgresWrites: [any PostgresWrite] { writes.compactMap { $0 as? any PostgresWrite } }
    /// Whether its writes run in a savepoint, which may roll back alone.
    var mayFailAlone: Bool { postgresWrites.contains { $0.needsSavepoint && $0.inSavepoint } }
    /// Whether its outcome may differ from its transaction's: it may fail alone, or be refused.
    var hasOwnOutcome: Bool { mayFailAlone || postgresWrites.contains(where: \.mayBeRefused) }
  }

  private struct State {
    var queue: [Request] = []
    var running = false
    var closed = false
    var connection: PostgresConnection?
    var batch: Int64 = 0
    var idle: [CheckedContinuation<Void, Never>] = []
    /// Batches whose COMMIT's outcome no primary could tell yet (`settle`).
    var undecided: [(batch: Int64, later: OutcomeLater)] = []
    var settling = false
  }

  private let node: String
  private let connector: PostgresConnector
  private let logger: Logger
  /// How long `ask` tries to reach a primary.
  private let outcomeWait: Duration
  private let state: Mutex<State>
  /// The most commands one transaction takes.
  private static let batchLimit = 1024

  init(
    node: String, connector: PostgresConnector, connection: PostgresConnection,
    outcomeWait: Duration, logger: Logger
  ) {
    self.node = node
    self.outcomeWait = outcomeWait
    self.connector = connector
    self.logger = logger
    state = Mutex(State(connection: connection))
  }

  func enqueue(
    _ writes: [any DurableWrite], completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    let start = state.withLock { s -> Bool? in
      guard !s.closed else { return nil }
      s.queue.append(Request(writes: writes, completion: completion))
      defer { s.running = true }
      return !s.running
    }
    switch start {
    // Not on the caller's thread, which may hold a lock the completion takes.
    case nil:
      Task(executorPreference: connector.executor) {
        completion(.failure(PostgresStoreError.closed))
      }
    case true?: Task(executorPreference: connector.executor) { await self.drain() }
    case false?: break
    }
  }

  /// Commits batches until the queue is empty.
  private func drain() async {
    while true {
      let next = state.withLock { s -> ([Request], Int64, PostgresConnection?) in
        let batch = Array(s.queue.prefix(Self.batchLimit))
        s.queue.removeFirst(batch.count)
        if batch.isEmpty {
          s.running = false
          for waiter in s.idle { waiter.resume() }
          s.idle = []
        }
        s.batch += 1
        return (batch, s.batch, s.connection)
      }
      guard !next.0.isEmpty else { return }
      let results = await commit(next.0, batch: next.1, connection: next.2)
      for (request, result) in zip(next.0, results) {
        if case .success = result { for write in request.writes { write.committed() } }
        request.completion(result)
      }
    }
  }

  /// One transaction, retried whole when PostgreSQL chose it as a deadlock's victim (nodes
  /// writing the same rows in other orders) or failed it for serialization; the result of each
  /// request.
  private func commit(
    _ requests: [Request], batch: Int64, connection given: PostgresConnection?
  ) async -> [Result<Void, any Error>] {
    var given = given
    for round in 1...Self.attempts {
      let connection: PostgresConnection
      do {
        if let open = given, !open.isClosed {
          connection = open
        } else {
          given?.discard()
          connection = try await connector.primary()
          state.withLock { $0.connection = connection }
        }
      } catch {
        guard round < Self.attempts else {
          return requests.map { _ in .failure(PostgresStoreError.unavailable("\(error)")) }
        }
        given = nil
        try? await Task.sleep(for: .milliseconds(20 * round))
        continue
      }
      let attempt: Attempt
      do {
        attempt = try await QueryDeadline.within(
          Self.transactionTimeout, closing: connection, on: connector.executor
        ) {
          await self.once(requests, batch: batch, on: connection)
        }
      } catch {
        // Given up on: whether its COMMIT went through is asked by its feed row.
        logger.warning(
          "group commit: transaction given up on; asking whether it committed",
          metadata: ["batch": "\(batch)", "error": "\(String(reflecting: error))"])
        await drop(connection)
        switch await ask(batch: batch, hadFeedRow: true) {
        case true? where !requests.contains(where: \.hasOwnOutcome):
          attempt = .done(requests.map { _ in .success(()) })
        case true?:
          // Committed, but which commands were rolled back or refused is not known.
          attempt = .done(
            requests.map { _ in
              .failure(PostgresStoreError.outcomeUnknown("\(error)", later: nil))
            })
        case false?:
          attempt = .done(
            requests.map { _ in .failure(PostgresStoreError.unavailable("\(error)")) })
        case nil:
          let failure = PostgresStoreError.outcomeUnknown(
            "\(error)", later: undecided(batch: batch))
          attempt = .done(requests.map { _ in .failure(failure) })
        }
      }
      switch attempt {
      case .done(let results): return results
      case .retry(let error):
        guard round < Self.attempts else {
          return requests.map { _ in .failure(error) }
        }
        given = connection
        try? await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * round))))
      }
    }
    fatalError("unreachable: the last attempt returns")
  }

  private static let attempts = 8
  /// A transaction not done by then is given up on (its connection closed).
  private static let transactionTimeout = Duration.seconds(60)
  private static let beginTimeout = Duration.seconds(2)
  private static let sequenceTimeout = Duration.seconds(10)

  private enum Attempt: Sendable {
    case done([Result<Void, any Error>])
    case retry(any Error)
  }

  private static func isRetryable(_ error: any Error) -> Bool {
    guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
    return state == "40P01" || state == "40001"
  }

  /// The connection's or the server's failure, not the write's: a lost connection, a server
  /// shutting down (57P…), a connection exception (08…), or a primary turned standby (25006).
  static func isUnavailable(_ error: any Error) -> Bool {
    guard let info = (error as? PSQLError)?.serverInfo else { return true }
    let state = info[.sqlState] ?? ""
    let severity = info[.severity] ?? ""
    return severity == "FATAL" || severity == "PANIC" || state.hasPrefix("08")
      || state.hasPrefix("57P") || state == "25006"
  }

  private func once(
    _ requests: [Request], batch: Int64, on connection: PostgresConnection
  ) async -> Attempt {
    var results: [Result<Void, any Error>] = []
    var sections: [FeedSection] = []
    do {
      // A connection the server dropped while it was idle may never answer (QueryDeadline): the
      // first statement finds out soon.
      try await QueryDeadline.within(Self.beginTimeout, closing: connection, on: connector.executor)
      { [logger] in
        try await connection.query("BEGIN", logger: logger)
      }
      // Refusals of commands merged into an earlier one's write, by request.
      var refusals: [Int: any Error] = [:]
      for (index, (request, writes)) in Self.merged(requests).enumerated() {
        let savepoint = request.mayFailAlone
        if savepoint { try await connection.query("SAVEPOINT command", logger: logger) }
        do {
          var feed: [FeedSection] = []
          for (write, parts) in writes {
            let applied = try await write.applyRefusing(on: connection, logger: logger)
            feed += applied.feed
            for (place, error) in applied.refused {
              // Its command wrote nothing else only if this was its only write.
              guard requests[parts[place]].postgresWrites.count == 1 else { throw error }
              refusals[parts[place]] = error
            }
          }
          if savepoint { try await connection.query("RELEASE SAVEPOINT command", logger: logger) }
          sections += feed
          results.append(refusals[index].map { .failure($0) } ?? .success(()))
        } catch let error as PSQLError
          where savepoint && !Self.isUnavailable(error) && !Self.isRetryable(error)
        {
          // The write's own failure (a constraint): only its command is undone.
          try await connection.query("ROLLBACK TO SAVEPOINT command", logger: logger)
          results.append(.failure(error))
        }
      }
      if !sections.isEmpty {
        try await ChangeFeed.append(
          sections, node: node, batch: batch, on: connection, logger: logger)
      }
    } catch {
      // Nothing was committed: a write without a savepoint failed, or the connection did. A
      // failed connection is dropped, not asked to roll back (it may never answer).
      if Self.isUnavailable(error) {
        await drop(connection)
      } else {
        let rolledBack = try? await QueryDeadline.within(
          Self.beginTimeout, closing: connection, on: connector.executor
        ) {
          [logger] in try await connection.query("ROLLBACK", logger: logger)
        }
        if rolledBack == nil { await drop(connection) }
      }
      if Self.isRetryable(error) { return .retry(error) }
      // Nothing was sent to COMMIT: the same transaction may go again on a new connection.
      if Self.isUnavailable(error) {
        return .retry(PostgresStoreError.unavailable(String(reflecting: error)))
      }
      return .done(requests.map { _ in .failure(error) })
    }
    do {
      try await connection.query("COMMIT", logger: logger)
    } catch {
      await drop(connection)
      switch await ask(batch: batch, hadFeedRow: !sections.isEmpty) {
      case true?: return .done(results)
      case false?:
        let failure = PostgresStoreError.unavailable("COMMIT failed: \(String(reflecting: error))")
        return .done(requests.map { _ in .failure(failure) })
      case nil:
        let failure = PostgresStoreError.outcomeUnknown(
          String(reflecting: error), later: sections.isEmpty ? nil : undecided(batch: batch))
        return .done(requests.map { _ in .failure(failure) })
      }
    }
    if !sections.isEmpty { await sequence(on: connection) }
    return .done(results)
  }

  /// Gives the feed row just committed its id, so other nodes read it now. Committed, it stands
  /// whatever happens here: should this fail, the next commit's or a follower's call gives it
  /// (`ChangeFollower`).
  private func sequence(on connection: PostgresConnection) async {
    do {
      try await QueryDeadline.within(
        Self.sequenceTimeout, closing: connection, on: connector.executor
      ) { [logger] in
        try await ChangeFeed.sequence(on: connection, logger: logger)
      }
    } catch {
      logger.warning(
        "group commit: the feed row's id not given; another node's call will",
        metadata: ["error": "\(String(reflecting: error))"])
      await drop(connection)
    }
  }

  /// The requests in order, each with its writes. Along a run of requests that need no
  /// savepoint, a write is merged into the run's last one where the writes allow
  /// (`PostgresWrite.absorb`): the request it came from then carries fewer writes, or none.
  /// Each write comes with the request of each of its parts (itself first, then what it
  /// absorbed), to whom a refusal goes.
  private static func merged(_ requests: [Request]) -> [(Request, [MergedWrite])] {
    var out: [(Request, [MergedWrite])] = []
    // Where the run's last write is: (request, write).
    var last: (Int, Int)?
    for (index, request) in requests.enumerated() {
      guard !request.mayFailAlone else {
        out.append((request, request.postgresWrites.map { ($0, [index]) }))
        last = nil
        continue
      }
      var kept: [MergedWrite] = []
      for write in request.postgresWrites {
        if let (r, w) = last, kept.isEmpty, out[r].1[w].write.absorb(write) {
          out[r].1[w].parts.append(index)
          continue
        }
        kept.append((write, [index]))
      }
      out.append((request, kept))
      if !kept.isEmpty { last = (out.count - 1, kept.count - 1) }
    }
    return out
  }

  private typealias MergedWrite = (write: any PostgresWrite, parts: [Int])

  /// Whether a commit whose COMMIT failed committed after all, asked of the primary (perhaps a
  /// new one: a failover takes seconds, so it is asked for up to `outcomeWait`) by the feed row
  /// it wrote; nil when no primary answers.
  private func ask(batch: Int64, hadFeedRow: Bool) async -> Bool? {
    guard hadFeedRow else { return nil }
    let deadline = ContinuousClock.now + outcomeWait
    while true {
      do {
        let connection = try await connector.primary()
        let old = state.withLock { s -> PostgresConnection? in
          defer { s.connection = connection }
          return s.connection
        }
        old?.discard()
        return try await QueryDeadline.within(
          .seconds(10), closing: connection, on: connector.executor
        ) {
          [node, logger] in
          try await ChangeFeed.committed(node: node, batch: batch, on: connection, logger: logger)
        }
      } catch {
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: .milliseconds(200))
      }
    }
  }

  /// A batch whose outcome `ask` could not learn: its answer, once a primary tells it.
  private func undecided(batch: Int64) -> OutcomeLater {
    let later = OutcomeLater()
    let start = state.withLock { s -> Bool in
      s.undecided.append((batch, later))
      defer { s.settling = true }
      return !s.settling
    }
    if start { Task(executorPreference: connector.executor) { await self.settle() } }
    return later
  }

  /// Asks the primary of the moment, every `settleEvery`, whether each undecided batch
  /// committed, until none is left or the store closes. The answer is final: a commit in
  /// progress is waited out (`ChangeFeed.committed`), and a transaction whose COMMIT never
  /// arrived has ended with its connection. (The feed keeps rows `--feed-minimum-age`, 600 s: an answer
  /// asked later than that could miss a pruned row.)
  private func settle() async {
    while true {
      let batches = state.withLock { s -> [(batch: Int64, later: OutcomeLater)]? in
        guard !s.undecided.isEmpty, !s.closed else {
          s.settling = false
          return nil
        }
        return s.undecided
      }
      guard let batches else { return }
      try? await Task.sleep(for: Self.settleEvery)
      guard let connection = try? await connector.primary() else { continue }
      defer { connection.discard() }
      for (batch, later) in batches {
        guard
          let committed = try? await QueryDeadline.within(
            .seconds(10), closing: connection, on: connector.executor,
            { [node, logger] in
              try await ChangeFeed.committed(
                node: node, batch: batch, on: connection, logger: logger)
            })
        else { break }
        logger.notice(
          "group commit: a lost COMMIT's outcome learnt",
          metadata: ["batch": "\(batch)", "committed": "\(committed)"])
        state.withLock { s in s.undecided.removeAll { $0.batch == batch } }
        later.settle(committed: committed)
      }
    }
  }

  private static let settleEvery = Duration.seconds(1)

  /// Closes a connection that failed; the next commit opens another.
  private func drop(_ connection: PostgresConnection) async {
    state.withLock { s in
      if s.connection === connection { s.connection = nil }
    }
    connection.discard()
  }

  func close() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { s -> Bool in
        s.closed = true
        guard s.running else { return true }
        s.idle.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
    let connection = state.withLock { s -> PostgresConnection? in
      defer { s.connection = nil }
      return s.connection
    }
    connection?.discard()
  }
}
