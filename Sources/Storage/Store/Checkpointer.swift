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
  /// 0: idle; 1: a checkpoint asked for or running; 2: and another asked for since it began,
  /// which then runs right after it, to copy what the writer added meanwhile (else frames
  /// written just before the writer fell idle would wait for its next round).
  private let state = Atomic<Int>(0)
  private let stopping = Atomic<Bool>(false)
  private let finished = DispatchGroup()
  /// The WAL's generation, which the writer counts up each time it sees the WAL restart.
  let generation = Atomic<Int>(0)
  /// The last checkpoint's generation (high 32 bits) and the frames it left copied (low 32).
  private let lastCopied = Atomic<Int>(0)
  /// Held while a checkpoint runs here, and by the writer copying the WAL itself at its bound.
  private let copying = Mutex(())

  /// Frames of the current WAL generation a checkpoint has copied (0 if none has run on it).
  var copiedFrames: Int {
    let last = lastCopied.load(ordering: .acquiring)
    return last >> 32 == generation.load(ordering: .acquiring) & 0xFFFF_FFFF
      ? last & 0xFFFF_FFFF : 0
  }

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
    var current = state.load(ordering: .acquiring)
    while current < 2 {
      let (exchanged, found) = state.compareExchange(
        expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
      if exchanged {
        if current == 0 { wake.signal() }
        return
      }
      current = found
    }
  }

  /// Runs `body` once the checkpoint under way, if any, is done, and before another starts:
  /// SQLite refuses a second checkpoint at once rather than waiting for the first.
  func exclusively<T>(_ body: () throws -> T) rethrows -> T {
    try copying.withLock { _ in try body() }
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
    var again = false
    while true {
      if !again { wake.wait() }
      if stopping.load(ordering: .acquiring) { break }
      do {
        if connection == nil {
          var configuration = Configuration()
          configuration.label = "cardatlas.store.checkpointer"
          configuration.busyMode = .timeout(5)
          connection = try DatabaseQueue(path: path, configuration: configuration)
        }
        let walGeneration = generation.load(ordering: .acquiring) & 0xFFFF_FFFF
        let copied = try copying.withLock { _ in
          try connection?.writeWithoutTransaction { db in
            try db.checkpoint(.passive).checkpointedFrameCount
          }
        }
        lastCopied.store(walGeneration << 32 | max(0, copied ?? 0), ordering: .releasing)
      } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
        // The writer is copying the rest itself.
      } catch {
        logger.warning("store: checkpoint of \(path) failed: \(StoreError.wrap(error, path: path))")
      }
      // 2 → 1: run again; 1 → 0: done.
      again = state.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue > 0
    }
    try? connection?.close()
  }
}
