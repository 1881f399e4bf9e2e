import Foundation

/// One `commit` call: its writes go into one transaction together, and its completion runs once
/// that transaction is durable or has failed.
struct PendingCommit {
  let writes: [any DurableWrite]
  let completion: @Sendable (Result<Void, any Error>) -> Void

  var changeCount: Int { writes.reduce(0) { $0 + $1.changeCount } }
}

/// The committers' side of group commit: any thread appends, the writer thread takes everything
/// queued at once, so one transaction holds all the commits that arrived while the previous one
/// was being written.
final class CommitQueue: @unchecked Sendable {
  // NSCondition guards everything below; it is the only lock with a wait here.
  private let condition = NSCondition()
  private var queued: [PendingCommit] = []
  private var queuedChanges = 0
  private var closed = false

  /// Queues a commit; false once the queue is closed.
  func append(_ commit: PendingCommit) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard !closed else { return false }
    queued.append(commit)
    queuedChanges += commit.changeCount
    if queued.count == 1 { condition.signal() }
    return true
  }

  enum Taken {
    /// Commits were moved into the batch.
    case commits
    /// None arrived for the idle interval.
    case idle
    /// Closed and drained.
    case closed
  }

  /// Waits for commits and moves them all, oldest first, into `batch` (emptied first), or gives
  /// up after `idle` seconds without one. The two arrays swap, so a steady load allocates none
  /// per round.
  func takeAll(into batch: inout [PendingCommit], idle: TimeInterval) -> Taken {
    batch.removeAll(keepingCapacity: true)
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: idle)
    while queued.isEmpty && !closed {
      if !condition.wait(until: deadline) && queued.isEmpty && !closed { return .idle }
    }
    if queued.isEmpty { return .closed }
    swap(&batch, &queued)
    queuedChanges = 0
    return .commits
  }

  /// Refuses new commits; the writer drains what is queued, then `takeAll` returns `.closed`.
  func close() {
    condition.lock()
    closed = true
    condition.broadcast()
    condition.unlock()
  }

  var pending: (commands: Int, changes: Int) {
    condition.lock()
    defer { condition.unlock() }
    return (queued.count, queuedChanges)
  }
}
