import Foundation
import Synchronization

/// Two clients, one on each node, sending at the same moment: two threads released together,
/// each sending `send(n, side)` for every `n` in order. The replies by `n`, both sides'.
enum RacingClients {
  static func race(_ count: Int, _ send: @escaping @Sendable (_ n: Int, _ side: Int) -> String)
    async throws -> [[String]]
  {
    let replies = Mutex<[[String]]>(Array(repeating: [], count: count))
    let ready = Atomic<Int>(0)
    let threads = (0..<2).map { side in
      Thread {
        ready.add(1, ordering: .relaxed)
        while ready.load(ordering: .relaxed) < 2 {}
        for n in 0..<count {
          let reply = send(n, side)
          replies.withLock { $0[n].append(reply) }
        }
      }
    }
    for thread in threads { thread.start() }
    while replies.withLock({ $0.contains { $0.count < 2 } }) {
      try await Task.sleep(for: .milliseconds(20))
    }
    return replies.withLock { $0 }
  }
}
