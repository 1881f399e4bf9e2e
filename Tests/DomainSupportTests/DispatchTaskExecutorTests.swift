import Dispatch
import DomainSupport
import Testing

/// Work that must not wait behind Swift's cooperative pool (sign-ins, geocoding) runs on
/// `DispatchTaskExecutor`'s queue, concurrently.
@Suite("DomainSupport: the Dispatch task executor")
struct DispatchTaskExecutorTests {
  @Test("a task that prefers it runs on it, and two such tasks run at once")
  func runsOnItsQueueConcurrently() async throws {
    let preferred = await Task(executorPreference: DispatchTaskExecutor.shared) {
      withUnsafeCurrentTask { $0?.unownedTaskExecutor }
    }.value
    #expect(preferred == DispatchTaskExecutor.shared.asUnownedTaskExecutor())
    // Each waits for the other to have started: a serial executor would leave both waiting.
    let (first, second) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    async let a = Task(executorPreference: DispatchTaskExecutor.shared) {
      first.signal()
      return second.wait(timeout: .now() + 10) == .success
    }.value
    async let b = Task(executorPreference: DispatchTaskExecutor.shared) {
      second.signal()
      return first.wait(timeout: .now() + 10) == .success
    }.value
    let (metA, metB) = await (a, b)
    #expect(metA && metB)
  }
}
