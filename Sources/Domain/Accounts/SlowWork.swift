import Foundation
import Synchronization

/// Where password hashing runs: off the event loops (a hash takes tens of milliseconds and
/// 16 MiB), as many at once as there are cores. Fair between clients: the work of one key (an
/// address) takes at most `runningPerKey` places in the queue at once, the rest waiting in the
/// key's own line, so one address's storm of sign-ins delays its own, not everyone's. At most
/// `capacity` in all, and `waitingPerKey` in one key's line, are held: beyond them a request is
/// refused (`busy`) rather than queued without bound.
final class SlowWork: Sendable {
  private struct State {
    var held = 0
    var running: [String: Int] = [:]
    var waiting: [String: [@Sendable () -> Void]] = [:]
  }

  private let queue: OperationQueue
  private let state = Mutex(State())
  let capacity: Int
  let runningPerKey: Int
  let waitingPerKey: Int

  init(capacity: Int = 1_000, runningPerKey: Int = 2, waitingPerKey: Int = 64) {
    let queue = OperationQueue()
    queue.name = "cardatlas.accounts.kdf"
    queue.maxConcurrentOperationCount = ProcessInfo.processInfo.activeProcessorCount
    self.queue = queue
    self.capacity = capacity
    self.runningPerKey = runningPerKey
    self.waitingPerKey = waitingPerKey
  }

  /// Runs `work` for `key` after `delay` seconds; false (and nothing run) when too much is held.
  func run(key: String, after delay: Double = 0, _ work: @escaping @Sendable () -> Void) -> Bool {
    let taken = state.withLock { s in
      guard s.held < capacity, s.waiting[key, default: []].count < waitingPerKey else {
        return false
      }
      s.held += 1
      return true
    }
    guard taken else { return false }
    if delay > 0 {
      DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.enqueue(key, work) }
    } else {
      enqueue(key, work)
    }
    return true
  }

  private func enqueue(_ key: String, _ work: @escaping @Sendable () -> Void) {
    let start = state.withLock { s in
      guard s.running[key, default: 0] < runningPerKey else {
        s.waiting[key, default: []].append(work)
        return false
      }
      s.running[key, default: 0] += 1
      return true
    }
    if start { submit(key, work) }
  }

  private func submit(_ key: String, _ work: @escaping @Sendable () -> Void) {
    queue.addOperation { [self] in
      work()
      let next = state.withLock { s -> (@Sendable () -> Void)? in
        s.held -= 1
        if var line = s.waiting[key], !line.isEmpty {
          let next = line.removeFirst()
          s.waiting[key] = line.isEmpty ? nil : line
          return next
        }
        let left = s.running[key, default: 1] - 1
        s.running[key] = left > 0 ? left : nil
        return nil
      }
      if let next { submit(key, next) }
    }
  }
}
