import Foundation
import Synchronization

/// Where password hashing runs: off the event loops (a hash takes tens of milliseconds and
/// 16 MiB), as many at once as there are cores, and at most `capacity` waiting, so a storm of
/// sign-ins is refused (`busy`) rather than queued without bound.
final class SlowWork: Sendable {
  private let queue: OperationQueue
  private let queued = Atomic<Int>(0)
  let capacity: Int

  init(capacity: Int = 1_000) {
    let queue = OperationQueue()
    queue.name = "cardatlas.accounts.kdf"
    queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
    self.queue = queue
    self.capacity = capacity
  }

  /// Runs `work` after `delay` seconds; false (and nothing run) when too much is waiting.
  func run(after delay: Double = 0, _ work: @escaping @Sendable () -> Void) -> Bool {
    guard queued.add(1, ordering: .relaxed).newValue <= capacity else {
      queued.subtract(1, ordering: .relaxed)
      return false
    }
    let start: @Sendable () -> Void = { [self] in
      queue.addOperation {
        work()
        self.queued.subtract(1, ordering: .relaxed)
      }
    }
    if delay > 0 {
      DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: start)
    } else {
      start()
    }
    return true
  }
}
