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
}
