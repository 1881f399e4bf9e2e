import DaemonTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The test run blocks Swift's global pool with synchronous tests; the web server under test
/// must answer anyway (a request once timed out after 60 s in CI while every pool thread was
/// busy).
@Suite("The web server's own threads")
struct DedicatedThreadsTests {
  @Test("a page is served while every thread of Swift's global pool is blocked")
  func answersWhileThePoolIsBlocked() async throws {
    try await TestDaemon.with { servers in
      let width = ProcessInfo.processInfo.activeProcessorCount
      let pool = BlockedPool(width: width)
      let status = Mutex<Int?>(nil)
      let url = URL(string: "http://127.0.0.1:\(servers.httpPort)/openapi.json")!
      Thread.detachNewThread {
        pool.waitUntilBlocked()
        status.withLock { $0 = Self.fetchStatus(url, timeout: 5) }
        pool.release()
      }
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<width { group.addTask { pool.block() } }
      }
      #expect(status.withLock { $0 } == 200)
    }
  }

  /// A GET off the pool (URLSession's completion handler runs on its own queue).
  static func fetchStatus(_ url: URL, timeout: TimeInterval) -> Int? {
    var request = URLRequest(url: url)
    request.timeoutInterval = timeout
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let done = DispatchSemaphore(value: 0)
    let status = Mutex<Int?>(nil)
    session.dataTask(with: request) { _, response, _ in
      status.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
      done.signal()
    }.resume()
    done.wait()
    return status.withLock { $0 }
  }
}

/// Holds `width` pool threads until released.
private final class BlockedPool: Sendable {
  let width: Int
  private let started = DispatchSemaphore(value: 0)
  private let released = DispatchSemaphore(value: 0)

  init(width: Int) { self.width = width }

  func block() {
    started.signal()
    released.wait()
  }

  /// Once every blocker runs (or 10 s have passed: the pool is busy with other tests anyway).
  func waitUntilBlocked() {
    for _ in 0..<width { _ = started.wait(timeout: .now() + 10) }
  }

  func release() {
    for _ in 0..<width { released.signal() }
  }
}
