import Logging
import PostgresNIO
import Synchronization

/// Gives up on work over a connection after a while, or soon after the connection closes. A
/// query sent as the server drops the connection was seen never to answer (postgres-nio 1.33),
/// which would stop a follower or the writer for good: past the deadline the connection is
/// closed and the caller gets an error, whatever the query then does. A writer's transaction
/// was caught that way in a standby's promotion, in half the runs, for the whole 60 s of its
/// deadline: the timer now also looks at the connection each `closedGrace`, and gives the work
/// up once it has been closed that long (time for the query to fail by itself first). Looked
/// at, not told: a callback on the connection's close for each call would pile up on a
/// long-lived connection. The work and its timer run on `executor` (the store's, nil: Swift's
/// global pool).
public enum QueryDeadline {
  struct Expired: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no answer from PostgreSQL within \(timeout)" }
  }

  struct Closed: Error, CustomStringConvertible {
    var description: String { "the connection closed with a query unanswered" }
  }

  static let closedGrace = Duration.seconds(1)

  public static func within<T: Sendable>(
    _ timeout: Duration, closing connection: PostgresConnection,
    on executor: (any TaskExecutor)?,
    _ operation: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    let race = Race()
    return try await withCheckedThrowingContinuation { continuation in
      let work = Task(executorPreference: executor) {
        let result: Result<T, any Error>
        do {
          result = .success(try await operation())
        } catch {
          result = .failure(error)
        }
        guard race.settle() else { return }
        race.timer.withLock { $0?.cancel() }
        continuation.resume(with: result)
      }
      race.timer.withLock {
        $0 = Task(executorPreference: executor) {
          let clock = ContinuousClock()
          let deadline = clock.now + timeout
          var seenClosed = false
          while true {
            try? await Task.sleep(for: min(closedGrace, deadline - clock.now))
            if Task.isCancelled { return }
            if clock.now >= deadline {
              guard race.settle() else { return }
              work.cancel()
              connection.discard()
              return continuation.resume(throwing: Expired(timeout: timeout))
            }
            // Closed at the last look too: closed for a whole `closedGrace` at least.
            if seenClosed {
              guard race.settle() else { return }
              work.cancel()
              return continuation.resume(throwing: Closed())
            }
            seenClosed = connection.isClosed
          }
        }
      }
    }
  }

  /// Which of the work and the timer finished first.
  private final class Race: Sendable {
    private let settled = Atomic<Bool>(false)
    let timer = Mutex<Task<Void, Never>?>(nil)

    /// True for the first caller only.
    func settle() -> Bool { !settled.exchange(true, ordering: .acquiringAndReleasing) }
  }
}

extension PostgresConnection {
  /// Closes the connection without waiting: closing one the server dropped was seen to hang as
  /// its queries did.
  public func discard() {
    // Held until closed: postgres-nio asserts that a connection is closed before it goes.
    close().whenComplete { _ in withExtendedLifetime(self) {} }
  }
}

extension PostgresConnection {
  /// Runs a statement whose rows are not wanted, and reads them anyway: an error the server
  /// raises while making rows (a function's exception, a deadlock in an advisory lock) comes
  /// with them, not with the next statement as "current transaction is aborted".
  public func run(_ query: PostgresQuery, logger: Logger) async throws {
    _ = try await self.query(query, logger: logger).collect()
  }
}
