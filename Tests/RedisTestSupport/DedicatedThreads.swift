import NIOCore
import NIOPosix

/// Threads of their own for what a test times or serves. The test run fills Swift's global
/// pool (one thread per core) with synchronous tests that block for minutes; a web server's
/// handlers queued behind them made a client time out (NSURLErrorDomain -1001 after 60 s), and
/// a timed call resumed late would look slow. Run them with this executor preferred.
public final class DedicatedThreads: TaskExecutor {
  public static let shared = DedicatedThreads()
  private let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    loops.next().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }

  /// Runs `action` once `delay` has passed, resumed on these threads: on time even while the
  /// pool is full (a kill -9 that came minutes late let a test's writers fill a key with
  /// millions of members).
  public static func after(_ delay: Duration, _ action: () -> Void) async throws {
    try await withTaskExecutorPreference(shared) {
      try await Task.sleep(for: delay)
      action()
    }
  }
}
