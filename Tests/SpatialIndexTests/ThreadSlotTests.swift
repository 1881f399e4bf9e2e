import Foundation
import Synchronization
import Testing

@testable import SpatialIndex

/// Each thread keeps the slot it is first given, and no two threads share one.
@Suite struct ThreadSlotTests {
  @Test func eachThreadKeepsItsOwnSlot() {
    let threads = 6
    let firstReads = Mutex<[Int?]>(Array(repeating: nil, count: threads))
    let unstable = Atomic<Int>(0)
    let done = DispatchGroup()
    for index in 0..<threads {
      done.enter()
      // New threads, so each is given its slot here (unless other tests took every one).
      Thread {
        let first = ThreadSlot.current
        for _ in 0..<1_000 where ThreadSlot.current != first {
          unstable.add(1, ordering: .relaxed)
        }
        firstReads.withLock { $0[index] = first }
        done.leave()
      }.start()
    }
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(unstable.load(ordering: .relaxed) == 0)
    let slots = firstReads.withLock { $0 }.compactMap { $0 }
    // Only threads past the last slot go without: then every slot was handed out.
    #expect(slots.count == threads || ThreadSlot.handedOut == ThreadSlot.count)
    #expect(Set(slots).count == slots.count, "two threads were given one slot: \(slots)")
    #expect(slots.allSatisfy { (0..<ThreadSlot.count).contains($0) })
    #expect(ThreadSlot.handedOut >= slots.count)
    #expect(ThreadSlot.current == ThreadSlot.current)
  }
}
