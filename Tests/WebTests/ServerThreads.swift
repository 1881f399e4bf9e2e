import NIOCore
import NIOPosix

/// Threads of the web server's own for its handlers. The test run fills Swift's global pool
/// (one thread per core) with synchronous tests that block for minutes; handlers queued
/// behind them would make a client time out (NSURLErrorDomain -1001 after 60 s).
final class ServerThreads: TaskExecutor {
  static let shared = ServerThreads()
  private let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    loops.next().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
