import Dispatch

/// Runs the verifier's tasks (and its actors' jobs) on Dispatch's threads rather than Swift's
/// cooperative pool: that pool has one thread per core, and anything in the process that blocks
/// on them would otherwise hold sign-ins up behind it.
final class DispatchTaskExecutor: TaskExecutor {
  static let shared = DispatchTaskExecutor()

  private let queue = DispatchQueue(
    label: "cardatlas.identity-tokens", qos: .userInitiated, attributes: .concurrent)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
