import Foundation
import GRDB
import Logging
import Synchronization

/// Copies the WAL back into the database file on a thread and a connection of its own. A
/// PASSIVE checkpoint takes no write lock, so commits go on while it runs: checkpointing on the
/// writer thread between rounds held every acknowledgement behind it, for up to 1.5 s once a
/// bulk load had filled the WAL with distinct pages.
///
/// The writer restarts the WAL only at a transaction that finds all of it copied, which a
/// checkpoint running beside a busy writer never achieves: new frames arrive as fast as it
/// copies. So the writer finishes the job itself (`GroupCommitter`), when what is left to copy
/// is small or the WAL has grown too long.
final class Checkpointer: Sendable {
  private let path: String
  private let logger: Logger
  private let wake = DispatchSemaphore(value: 0)
  /// A checkpoint is asked for and not yet done: later requests add nothing.
  private let requested = Atomic<Bool>(false)
  private let stopping = Atomic<Bool>(false)
  private let finished = DispatchGroup()
  /// Frames the last checkpoint left copied, of the WAL as it then was.
  let copiedFrames = Atomic<Int>(0)

  /// Whether a checkpoint is asked for or running.
  var isBusy: Bool { requested.load(ordering: .acquiring) }

  init(path: String, logger: Logger) {
    self.path = path
    self.logger = logger
  }

  func start() {
    finished.enter()
    let thread = Thread { [self] in run() }
    thread.name = "cardatlas-store-checkpointer"
    thread.start()
  }

  /// Asks for a checkpoint soon; returns at once.
  func request() {
    if requested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
      .exchanged
    {
      wake.signal()
    }
  }

  /// Ends the thread once the checkpoint under way, if any, is done.
  func stop() {
    stopping.store(true, ordering: .releasing)
    wake.signal()
    finished.wait()
  }

  private func run() {
    defer { finished.leave() }
    var connection: DatabaseQueue?
    while true {
      wake.wait()
      if stopping.load(ordering: .acquiring) { break }
      do {
        if connection == nil {
          var configuration = Configuration()
          configuration.label = "cardatlas.store.checkpointer"
          configuration.busyMode = .timeout(5)
          connection = try DatabaseQueue(path: path, configuration: configuration)
        }
        let copied = try connection?.writeWithoutTransaction { db in
          try db.checkpoint(.passive).checkpointedFrameCount
        }
        copiedFrames.store(copied ?? 0, ordering: .relaxed)
      } catch {
        logger.warning("store: checkpoint of \(path) failed: \(StoreError.wrap(error, path: path))")
      }
      requested.store(false, ordering: .releasing)
    }
    try? connection?.close()
  }
}
