import Foundation
import GRDB
import Logging
import Synchronization

/// The durable store: every write the server acknowledges is in `directory/cardatlas.sqlite`
/// (SQLite in WAL mode, with SpatiaLite), and the modules load their state back from it.
///
/// Writes are group-committed: `commit` queues one command's writes, and a single writer thread
/// writes everything queued at that moment in one transaction, so the cost of a transaction
/// (and of its fsync) is shared by all the commands that arrived meanwhile.
public final class Store: WriteCommitter {
  /// The database file.
  public let path: String
  /// The data directory holding it, where modules keep files of their own (`media/`).
  public var directory: String { (path as NSString).deletingLastPathComponent }
  public let fsync: FsyncPolicy
  // Internal for the tests, which check the SQL side through its pool.
  let committer: GroupCommitter
  private let closed = Atomic<Bool>(false)
  let held: HeldFiles

  /// Opens (creating if needed) `directory/cardatlas.sqlite` and runs the store's migrations,
  /// then `migrations` (the domain modules'), oldest first.
  public convenience init(
    directory: String, fsync: FsyncPolicy = .always, migrations: [StoreMigration] = [],
    logger: Logger = Logger(label: "cardatlas.store")
  ) throws {
    try self.init(
      directory: directory, fsync: fsync, migrations: migrations, logger: logger,
      tuning: .default)
  }

  init(
    directory: String, fsync: FsyncPolicy, migrations: [StoreMigration] = [], logger: Logger,
    tuning: Tuning
  ) throws {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw StoreError.cannotCreateDirectory(path: directory, message: "\(error)")
    }
    let path = (directory as NSString).appendingPathComponent(Schema.fileName)
    self.path = path
    self.fsync = fsync
    let wal = WalSize()
    let pool: DatabasePool
    do {
      pool = try DatabasePool(
        path: path, configuration: Connection.configuration(tuning: tuning, wal: wal))
      try Connection.setSynchronous(fsync, pool)
      try Schema.migrator(migrations).migrate(pool)
      held = HeldFiles(directory: directory)
      try held.takeTokens(pool)
      // The new file's directory entry must survive a power loss too.
      try syncPath(directory, directory: true)
    } catch {
      throw StoreError.wrap(error, path: path)
    }
    committer = GroupCommitter(pool: pool, wal: wal, path: path, tuning: tuning, logger: logger)
    committer.start()
    logger.info("store: opened \(path) (fsync \(fsync.rawValue))")
  }

  deinit { close() }

  /// Queues one command's writes for the next transaction. `completion` runs on the writer
  /// thread once the transaction holding them is durable, or has failed (then every command in
  /// it gets the error; a failing domain write fails only its own command), in commit order. It
  /// must not block on another commit. After `close`, it runs at once, on the caller's thread,
  /// with `StoreError.closed`.
  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    let pending = PendingCommit(writes: writes, completion: completion)
    if closed.load(ordering: .acquiring) || !committer.queue.append(pending) {
      // Memory may hold this write: what was kept of it (`HeldFiles`) no longer matches.
      held.forget()
      completion(.failure(StoreError.closed))
    }
  }

  /// `commit`, waiting for the outcome (never on the writer thread).
  func commitAndWait(_ writes: [any DurableWrite]) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<Void, any Error>>(.success(()))
    commit(writes) { result in
      outcome.withLock { $0 = result }
      done.signal()
    }
    done.wait()
    try outcome.withLock { $0 }.get()
  }

  /// Runs `body` on a reader connection, in one snapshot (SpatiaLite loaded): modules load
  /// their state and answer their queries through it. Writes go through `commit`.
  public func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T {
    try checkOpen()
    do {
      return try committer.pool.read(body)
    } catch let error as DatabaseError {
      throw StoreError.wrap(error, path: path)
    }
  }

  /// Writes a consistent copy of the database to `destination` while commits go on: SQLite's
  /// online backup, from one read snapshot, into `destination.partial`, renamed when complete.
  /// Blocks the caller for the length of the copy.
  public func backup(to destination: String) throws {
    try checkOpen()
    guard
      URL(fileURLWithPath: destination).standardizedFileURL.path
        != URL(fileURLWithPath: path).standardizedFileURL.path
    else { throw StoreError.sqlite(code: 21, message: "cannot back up \(path) onto itself") }
    committer.stats.withLock { $0.backupsInProgress += 1 }
    let start = ContinuousClock.now
    var failure: String?
    defer {
      let duration = start.duration(to: .now)
      committer.stats.withLock { s in
        s.backupsInProgress -= 1
        s.lastBackupTime = Date()
        s.lastBackupDuration = duration
        s.lastBackupError = failure
      }
    }
    do {
      try Backup.copy(from: committer.pool, to: destination)
    } catch {
      let wrapped = StoreError.wrap(error, path: destination)
      failure = "\(wrapped)"
      throw wrapped
    }
  }

  /// Writes what is queued, checkpoints the WAL into the database file and closes it.
  /// Idempotent. Called from a completion (the writer thread), it returns without waiting.
  /// Before the store's last commit, `whenClosing`'s bodies run, once.
  public func close() {
    if !committer.isCurrentThread { held.runClosing() }
    if !closed.exchange(true, ordering: .acquiringAndReleasing) {
      committer.queue.close()
    }
    if !committer.isCurrentThread {
      committer.finished.wait()
      held.closed(committer.stats.withLock { $0 })
    }
  }

  public var statistics: StoreStatistics {
    var s = committer.stats.withLock { $0 }
    (s.pendingCommands, s.pendingChanges) = committer.queue.pending
    s.databaseBytes = fileSize(path)
    s.walBytes = fileSize(path + "-wal")
    return s
  }

  private func checkOpen() throws {
    if closed.load(ordering: .acquiring) { throw StoreError.closed }
  }
}

extension Store {
  /// The rows of `table`, or nil when the store has no such table.
  public func rowCount(of table: String) throws -> Int? {
    try read { db in
      guard try db.tableExists(table) else { return nil }
      return try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"")
    }
  }
}

extension Store {
  /// The store's file in its directory.
  public static var fileName: String { Schema.fileName }
}
