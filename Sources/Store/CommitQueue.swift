import Foundation
import Keyspace

/// One `commit` call: its changes go into one transaction together, and its completion runs once
/// that transaction is durable or has failed.
struct PendingCommit {
  let changes: [Change]
  let completion: @Sendable (Result<Void, any Error>) -> Void
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
    queuedChanges += commit.changes.count
    if queued.count == 1 { condition.signal() }
    return true
  }

  /// Waits for commits and moves them all, oldest first, into `batch` (emptied first); false
  /// when closed and drained. The two arrays swap, so a steady load allocates none per round.
  func takeAll(into batch: inout [PendingCommit]) -> Bool {
    batch.removeAll(keepingCapacity: true)
    condition.lock()
    defer { condition.unlock() }
    while queued.isEmpty && !closed { condition.wait() }
    if queued.isEmpty { return false }
    swap(&batch, &queued)
    queuedChanges = 0
    return true
  }

  /// Refuses new commits; the writer drains what is queued, then `takeAll` returns false.
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
