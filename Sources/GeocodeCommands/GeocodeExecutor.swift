import Dispatch

/// Where GEOCODE's tasks run: threads of their own (Dispatch's), neither the event loops nor
/// Swift's cooperative pool, which code elsewhere in the process may hold with blocking work.
final class GeocodeExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "cardatlas.geocode", attributes: .concurrent)

  static let shared = GeocodeExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
