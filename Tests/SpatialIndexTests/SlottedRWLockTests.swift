import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SpatialIndex

/// The keyspace's and the indexes' lock: readers side by side, a writer alone, under real threads.
@Suite struct SlottedRWLockTests {
  /// Guarded by the lock: a writer changes both halves, so a reader that ever sees them differ
  /// has run beside a writer.
  final class Pair: @unchecked Sendable {
    var a = 0
    var b = 0
  }

  @Test func writersExcludeReadersAndEachOther() {
    let lock = SlottedRWLock()
    let pair = Pair()
    let readersInside = Atomic<Int>(0)
    let writersInside = Atomic<Int>(0)
    let torn = Atomic<Int>(0)
    let overlapping = Atomic<Int>(0)
    let writes = 20_000
    // Eight threads: two write, six read (some beyond the slots other tests took).
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for round in 0..<writes {
        if worker < 2 {
          lock.withWriteLock {
            if writersInside.add(1, ordering: .relaxed).newValue != 1
              || readersInside.load(ordering: .relaxed) != 0
            {
              overlapping.add(1, ordering: .relaxed)
            }
            pair.a += 1
            if round % 3 == 0 { Thread.sleep(forTimeInterval: 0) }
            pair.b += 1
            writersInside.subtract(1, ordering: .relaxed)
          }
        } else {
          lock.withReadLock {
            readersInside.add(1, ordering: .relaxed)
            if writersInside.load(ordering: .relaxed) != 0 {
              overlapping.add(1, ordering: .relaxed)
            }
            let a = pair.a
            if round % 3 == 0 { Thread.sleep(forTimeInterval: 0) }
            if a != pair.b { torn.add(1, ordering: .relaxed) }
            readersInside.subtract(1, ordering: .relaxed)
          }
        }
      }
    }
    let overlaps = overlapping.load(ordering: .relaxed)
    let tornReads = torn.load(ordering: .relaxed)
    #expect(overlaps == 0)
    #expect(tornReads == 0)
    #expect(pair.a == 2 * writes && pair.b == 2 * writes)
  }

  /// A reader holding the lock lets a second reader in: the second signals from inside while
  /// the first still waits for that signal.
  @Test func readersShareTheLock() {
    let lock = SlottedRWLock()
    let firstInside = DispatchSemaphore(value: 0)
    let secondInside = DispatchSemaphore(value: 0)
    let sawSecond = Atomic<Bool>(false)
    let first = Thread {
      lock.withReadLock {
        firstInside.signal()
        sawSecond.store(secondInside.wait(timeout: .now() + 10) == .success, ordering: .relaxed)
      }
    }
    first.start()
    #expect(firstInside.wait(timeout: .now() + 10) == .success)
    lock.withReadLock { secondInside.signal() }
    lock.withWriteLock {}  // waits for the first reader to leave
    let bothInside = sawSecond.load(ordering: .relaxed)
    #expect(bothInside)
  }
}
