import Dispatch

/// Runs tasks on Dispatch's threads rather than Swift's cooperative pool. That pool has one
/// thread per core, and anything in the process that blocks on them (a test's socket calls, a
/// synchronous library) would hold up work that must not wait behind it: sign-ins, geocoding.
public final class DispatchTaskExecutor: TaskExecutor {
  /// One for the whole process: its queue is concurrent, so callers do not wait for each other.
  public static let shared = DispatchTaskExecutor()

  private let queue = DispatchQueue(
    label: "cardatlas.tasks", qos: .userInitiated, attributes: .concurrent)

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
