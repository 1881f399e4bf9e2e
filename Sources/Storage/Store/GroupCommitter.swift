import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// The writer thread: takes everything queued, writes it in one transaction, runs the
/// completions, checkpoints when the WAL has grown, and repeats. One thread owns the write
/// connection, so the statements stay prepared and nothing contends for SQLite's write lock.
final class GroupCommitter: Sendable {
  let pool: DatabasePool
  let queue = CommitQueue()
  let stats = Mutex(StoreStatistics())
  let wal: WalSize
  let path: String
  let tuning: Tuning
  let logger: Logger
  let checkpointer: Checkpointer
  /// Left when the thread has drained the queue and closed the database.
  let finished = DispatchGroup()
  private static let threadKey = "cardatlas.store.writer"

  init(pool: DatabasePool, wal: WalSize, path: String, tuning: Tuning, logger: Logger) {
    self.pool = pool
    self.wal = wal
    self.path = path
    self.tuning = tuning
    self.logger = logger
    checkpointer = Checkpointer(path: path, logger: logger)
  }

  func start() {
    checkpointer.start()
    finished.enter()
    let thread = Thread { [self] in
      Thread.current.threadDictionary[Self.threadKey] = self
      run()
    }
    thread.name = "cardatlas-store-writer"
    thread.start()
  }

  /// True on this committer's own thread (where completions run).
  var isCurrentThread: Bool {
    (Thread.current.threadDictionary[Self.threadKey] as AnyObject?) === self
  }

  private func run() {
    var batch: [PendingCommit] = []
    var lastPages = 0
    // False at first: a WAL left from before the store opened is emptied at the first pause.
    var walEmpty = false
    rounds: while true {
      switch queue.takeAll(into: &batch, idle: tuning.idleTruncateDelay) {
      case .closed: break rounds
      case .idle:
        if !walEmpty && truncateWal() {
          walEmpty = true
          lastPages = 0
        }
        continue
      case .commits: break
      }
      write(batch)
      walEmpty = false
      let pages = wal.pages.load(ordering: .relaxed)
      // Fewer frames than after the last round: the WAL restarted, and what the checkpointer
      // copied of the old one says nothing of the new.
      if pages < lastPages { checkpointer.generation.add(1, ordering: .releasing) }
      lastPages = pages
      checkpointIfNeeded(pages)
    }
    checkpointer.stop()
    do {
      // TRUNCATE leaves an empty WAL: the file alone is the whole database.
      try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    } catch {
      logger.warning("store: final checkpoint of \(path): \(StoreError.wrap(error, path: path))")
    }
    // Closed even when the checkpoint failed: a store reopened after `close()` must not find
    // this one's connections still open.
    do {
      try pool.close()
    } catch {
      logger.warning("store: closing \(path): \(StoreError.wrap(error, path: path))")
    }
    finished.leave()
  }

  private func write(_ batch: [PendingCommit]) {
    let start = ContinuousClock.now
    var changes = 0
    // Commands whose own domain writes failed; the rest of the transaction went through.
    var refused: [Int: any Error] = [:]
    let result: Result<Void, any Error>
    do {
      try pool.writeWithoutTransaction { db in
        // IMMEDIATE takes the write lock up front: a lock held by another process fails the
        // round at BEGIN after the busy timeout, not halfway through.
        try db.inTransaction(.immediate) {
          let transaction = StoreTransaction(db)
          for (index, commit) in batch.enumerated() {
            if commit.writes.contains(where: { !$0.inSavepoint }) {
              // Its error fails the transaction (`DurableWrite.inSavepoint`).
              for write in commit.writes { try Self.apply(write, in: transaction) }
            } else if !commit.writes.contains(where: \.needsSavepoint) {
              for write in commit.writes { try Self.apply(write, in: transaction) }
            } else {
              do {
                try db.inSavepoint {
                  for write in commit.writes { try Self.apply(write, in: transaction) }
                  return .commit
                }
              } catch  where Self.failsOnlyItsCommand(error) {
                refused[index] = error
                continue
              }
            }
            changes += commit.changeCount
          }
          return .commit
        }
      }
      result = .success(())
    } catch {
      let wrapped = StoreError.wrap(error, path: path)
      logger.error("store: transaction of \(batch.count) commands failed: \(wrapped)")
      result = .failure(wrapped)
    }
    let duration = start.duration(to: .now)
    stats.withLock { s in
      s.lastCommitDuration = duration
      s.lastTransactionCommands = batch.count
      switch result {
      case .success:
        s.transactions += 1
        s.commands += batch.count - refused.count
        s.refusedCommands += refused.count
        s.changes += changes
      case .failure(let error):
        s.failedTransactions += 1
        s.lastError = "\(error)"
      }
    }
    for (index, commit) in batch.enumerated() {
      if case .success = result, let error = refused[index] {
        // A domain's own error reaches it as thrown; SQLite's is named as the store names it.
        commit.completion(
          .failure(error is DatabaseError ? StoreError.wrap(error, path: path) : error))
      } else {
        if case .success = result { for write in commit.writes { write.committed() } }
        commit.completion(result)
      }
    }
  }

  /// Runs a write's SQL; a write with none (a message to publish once durable) has nothing to
  /// do here.
  private static func apply(_ write: any DurableWrite, in transaction: StoreTransaction) throws {
    if let write = write as? any SQLiteWrite { try write.apply(in: transaction) }
  }

  /// A domain write's own error (thrown by its code, or a constraint it broke) leaves the
  /// transaction usable once its savepoint is rolled back; SQLite's other errors (a full disk,
  /// an I/O error) may have rolled back the whole transaction, so they fail it.
  private static func failsOnlyItsCommand(_ error: any Error) -> Bool {
    guard let error = error as? DatabaseError else { return true }
    return error.resultCode == .SQLITE_CONSTRAINT
  }

  /// Empties the WAL file once the writer has been idle a while (TRUNCATE checkpoint): the next
  /// burst then appends to a fresh file. Written over instead, old WAL blocks the OS has evicted
  /// meanwhile are read back from disk first, since a frame covers part of a block: after a
  /// minute's pause, the next five seconds of moves ran at a third of their speed. Tries once,
  /// without waiting: a reader or a checkpoint in the way leaves it to the next idle interval.
  private func truncateWal() -> Bool {
    do {
      try pool.writeWithoutTransaction { db in
        let connection = db.sqliteConnection
        sqlite3_busy_timeout(connection, 0)
        defer { sqlite3_busy_timeout(connection, CInt(tuning.busyTimeout * 1000)) }
        _ = try db.checkpoint(.truncate)
      }
      // A new WAL generation: what the checkpointer copied of the old one no longer counts.
      wal.pages.store(0, ordering: .relaxed)
      checkpointer.generation.add(1, ordering: .releasing)
      return true
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      return false
    } catch {
      logger.warning("store: truncating the WAL of \(path): \(StoreError.wrap(error, path: path))")
      return false
    }
  }

  /// Once the WAL is long, the checkpointer copies it beside the commits; the writer copies the
  /// rest itself (holding the next round back) when little is left, so that the WAL restarts,
  /// or when the WAL has grown to `maximumWalPages` despite the checkpointer, to bound the file.
  private func checkpointIfNeeded(_ pages: Int) {
    guard pages >= tuning.checkpointPages else { return }
    let rest = pages - checkpointer.copiedFrames
    guard pages >= tuning.maximumWalPages || rest <= tuning.walTailPages else {
      return checkpointer.request()
    }
    do {
      if pages >= tuning.maximumWalPages {
        // At the bound, the round waits for the checkpointer: giving way to it each time let a
        // slow one (a loaded machine) leave the WAL growing past the bound.
        try checkpointer.exclusively {
          try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
        }
      } else {
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      // The checkpointer is copying: the next round tries again.
    } catch {
      logger.warning("store: checkpoint of \(path) failed: \(StoreError.wrap(error, path: path))")
    }
  }
}
