import Foundation

/// Where the keyspace's writes are made durable (the embedded journal, or PostgreSQL).
public protocol ChangeLog: Sendable {
  /// Takes one write's changes. Called while the write still holds the keyspace's lock, so the
  /// log receives writes in the order they were made: two writes to one member from two event
  /// loops cannot become durable in the other order. It must not block.
  func append(_ changes: [Change]) -> Commit
}

/// One write on its way to being durable: each `whenComplete` runs once it is, or could not be
/// made so, whichever comes first of the log's answer and the caller's asking.
public final class Commit: @unchecked Sendable {
  public typealias Completion = @Sendable (Result<Void, any Error>) -> Void
  // A pthread lock (NSLock), not Synchronization's Mutex: its futex is invisible to
  // ThreadSanitizer, which then reports every access under it as a race. It guards both.
  private let lock = NSLock()
  private var result: Result<Void, any Error>?
  /// The first waiter (the reply's), and any after it (the fences' events), in order: one
  /// apart, so that the usual commit allocates no array.
  private var waiter: Completion?
  private var more: [Completion] = []

  public init() {}

  /// A commit already answered.
  public init(_ result: Result<Void, any Error>) {
    self.result = result
  }

  /// The log's answer; runs the waiters there yet, in order.
  public func complete(_ result: Result<Void, any Error>) {
    let (waiter, more) = lock.withLock {
      self.result = result
      defer { (self.waiter, self.more) = (nil, []) }
      return (self.waiter, self.more)
    }
    waiter?(result)
    for waiter in more { waiter(result) }
  }

  /// Runs `body` with the answer: at once if it came, otherwise when it comes.
  public func whenComplete(_ body: @escaping Completion) {
    let result = lock.withLock {
      if self.result == nil {
        if waiter == nil { waiter = body } else { more.append(body) }
      }
      return self.result
    }
    if let result { body(result) }
  }

  /// Runs `body` once every one of `commits` is answered: with the first failure, if any.
  public static func whenAll(_ commits: [Commit], _ body: @escaping Completion) {
    guard let first = commits.first else { return body(.success(())) }
    first.whenComplete { result in
      guard case .success = result else { return body(result) }
      whenAll(Array(commits.dropFirst()), body)
    }
  }
}

/// A log that keeps nothing: for a keyspace that lives only in memory (the command fuzzer,
/// benchmarks of the commands alone).
public struct MemoryOnly: ChangeLog {
  public init() {}
  public func append(_ changes: [Change]) -> Commit { Commit(.success(())) }
}
