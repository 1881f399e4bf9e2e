import Durability
import Synchronization
import Testing

/// What a failed write sets back runs at once, or, for a commit whose outcome the store learns
/// later, only once it learns the commit did not go through.
@Suite("A failed commit's undo, now or once its outcome is known")
struct OutcomeLaterTests {
  struct Failure: StoreFailure {
    var nothingWritten: Bool
    var outcomeLater: OutcomeLater?
  }

  struct Refused: Error {}

  @Test("a plain error, and a store failure whose outcome is known, undo at once")
  func atOnce() {
    for error: any Error in [Refused(), Failure(nothingWritten: true, outcomeLater: nil)] {
      let undone = Mutex(0)
      unlessCommittedLater(error) { undone.withLock { $0 += 1 } }
      #expect(undone.withLock { $0 } == 1, "\(error)")
    }
  }

  @Test(
    "an outcome learnt later: nothing until it is known, then the undo once if it did not commit, never if it did; a second answer is ignored; a listener after the answer hears it at once"
  )
  func later() {
    for committed in [true, false] {
      let later = OutcomeLater()
      let undone = Mutex(0)
      unlessCommittedLater(Failure(nothingWritten: false, outcomeLater: later)) {
        undone.withLock { $0 += 1 }
      }
      #expect(undone.withLock { $0 } == 0)
      later.settle(committed: committed)
      later.settle(committed: !committed)
      #expect(undone.withLock { $0 } == (committed ? 0 : 1))
      let heard = Mutex<Bool?>(nil)
      later.whenKnown { answer in heard.withLock { $0 = answer } }
      #expect(heard.withLock { $0 } == committed)
    }
  }
}
