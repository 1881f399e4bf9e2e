import Foundation
import GRDB
import Keyspace
import Logging
import Store

/// The keyspace's durability point: a command's changes are acknowledged once appended to
/// `keyspace.journal` (and fdatasynced, under `FsyncPolicy.always`), as Redis's AOF does, and
/// are applied to the store's tables behind it, in order, in the store's group commit.
///
/// - The tables lag the journal by at most `maximumUnapplied` bytes of records (some 45 bytes
///   a GEO member); past that, acknowledgements wait for the tables, so a bulk load longer
///   than that runs at the tables' pace.
/// - Once every record is in the tables and the journal has grown past `truncateAbove`, it is
///   truncated before the next record; `close()` and `drain()` wait for the tables, so after a
///   clean stop (or a BACKUP) the store holds every acknowledged write and GIS tools read it.
/// - At open, a journal left by a crash is replayed into the tables before anything reads
///   them, then truncated. Every change sets a value outright (a member's position, a key's
///   value, a key or database gone), so replaying records the tables already hold leaves them
///   as they were; a record cut short by the crash was never acknowledged and is dropped.
public final class KeyspaceJournal: @unchecked Sendable {
  public static let fileName = "keyspace.journal"

  public struct Limits: Sendable {
    public var maximumUnapplied = 64 << 20
    public var truncateAbove = 64 << 20
    public init() {}
  }

  private typealias Completion = @Sendable (Result<Void, any Error>) -> Void
  private struct Queued {
    let payload: [UInt8]
    let count: Int
    let completion: Completion
  }

  private let store: Store
  private let fsync: FsyncPolicy
  private let limits: Limits
  private let logger: Logger
  private let path: String
  private let fd: Int32
  private let finished = DispatchGroup()
  // `condition` guards everything below.
  private let condition = NSCondition()
  private var queue: [Queued] = []
  /// Records taken by the writer and not yet answered.
  private var writing = false
  /// Bytes of records written and not yet in the tables.
  private var unapplied = 0
  private var fileSize = 0
  private var closing = false
  /// A write to the tables failed: the journal keeps every record until a restart replays it.
  private var applyFailed = false
  /// A record could not be written nor cut back: no later record may follow it.
  private var broken: (any Error)?

  /// Opens (creating if needed) the journal in `store`'s directory, replays what a crash left
  /// in it into the store's tables, and starts its writer.
  public init(
    store: Store, fsync: FsyncPolicy, limits: Limits = Limits(), logger: Logger
  ) throws {
    self.store = store
    self.fsync = fsync
    self.limits = limits
    self.logger = logger
    path = (store.directory as NSString).appendingPathComponent(Self.fileName)
    let existed = FileManager.default.fileExists(atPath: path)
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Self.error("open", path) }
    do {
      if !existed { try Self.syncDirectory(store.directory) }
      try replay()
    } catch {
      Foundation.close(fd)
      throw error
    }
    finished.enter()
    let thread = Thread { [self] in run() }
    thread.name = "cardatlas-journal"
    thread.start()
  }

  /// Queues one command's changes; `completion` runs once they are durable in the journal (or
  /// could not be made so), on the journal's thread.
  public func commit(
    changes: [Change], completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    guard !changes.isEmpty else { return completion(.success(())) }
    // Encoded on the caller's thread: the event loops share the work the writer would do alone.
    var payload: [UInt8] = []
    for change in changes { JournalFormat.append(change, to: &payload) }
    condition.lock()
    if closing || broken != nil {
      let error = broken ?? StoreError.closed
      condition.unlock()
      return completion(.failure(error))
    }
    queue.append(Queued(payload: payload, count: changes.count, completion: completion))
    condition.broadcast()
    condition.unlock()
  }

  public func commit(changes: [Change]) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      commit(changes: changes) { done.resume(with: $0) }
    }
  }

  /// Returns once every change acknowledged so far is in the store's tables.
  public func drain() {
    condition.lock()
    while !queue.isEmpty || writing || unapplied > 0 { condition.wait() }
    condition.unlock()
  }

  /// Writes what is queued, waits for the tables, and empties the journal: the store alone then
  /// holds everything. Commits after this fail with `StoreError.closed`.
  public func close() {
    condition.lock()
    guard !closing else { return condition.unlock() }
    closing = true
    condition.broadcast()
    condition.unlock()
    finished.wait()
    drain()
    condition.lock()
    let keep = applyFailed || broken != nil
    condition.unlock()
    if !keep {
      do { try truncate() } catch {
        logger.warning("journal: could not empty \(path) at close: \(error)")
      }
    }
    Foundation.close(fd)
  }

  /// Bytes of acknowledged records not yet in the tables (INFO).
  public var unappliedBytes: Int {
    condition.lock()
    defer { condition.unlock() }
    return unapplied
  }

  // MARK: The writer

  private func run() {
    defer { finished.leave() }
    while true {
      condition.lock()
      while queue.isEmpty && !closing { condition.wait() }
      if queue.isEmpty {
        condition.unlock()
        return
      }
      // Backpressure: the tables are this far behind.
      while unapplied > limits.maximumUnapplied && !applyFailed { condition.wait() }
      let batch = queue
      queue = []
      writing = true
      let truncating = unapplied == 0 && fileSize > limits.truncateAbove && !applyFailed
      condition.unlock()
      write(batch, truncatingFirst: truncating)
      condition.lock()
      writing = false
      condition.broadcast()
      condition.unlock()
    }
  }

  private func write(_ batch: [Queued], truncatingFirst: Bool) {
    var payload: [UInt8] = []
    payload.reserveCapacity(batch.reduce(0) { $0 + $1.payload.count })
    for queued in batch { payload += queued.payload }
    let record = JournalFormat.record(payload)
    do {
      if truncatingFirst { try truncate() }
      try append(record)
    } catch {
      for queued in batch { queued.completion(.failure(error)) }
      return
    }
    condition.lock()
    unapplied += record.count
    condition.unlock()
    let count = batch.reduce(0) { $0 + $1.count }
    store.commit([JournalWrite(payloads: [payload[...]], changeCount: count)]) {
      [self] result in
      condition.lock()
      unapplied -= record.count
      if case .failure(let error) = result {
        applyFailed = true
        logger.error(
          "journal: changes not applied to the store's tables; kept in \(path) for the next start",
          metadata: ["error": "\(error)"])
      }
      condition.broadcast()
      condition.unlock()
    }
    for queued in batch { queued.completion(.success(())) }
  }

  /// Appends a record, durably under `.always`. A failure cuts the file back to where it was,
  /// so that no record ever follows a torn one.
  private func append(_ record: [UInt8]) throws {
    do {
      var written = 0
      try record.withUnsafeBytes { bytes in
        while written < bytes.count {
          let n = pwrite(
            fd, bytes.baseAddress! + written, bytes.count - written, off_t(fileSize + written))
          if n < 0 {
            if errno == EINTR { continue }
            throw Self.error("write", path)
          }
          written += n
        }
      }
      if fsync == .always, fdatasync(fd) != 0 { throw Self.error("fdatasync", path) }
      fileSize += record.count
    } catch {
      if ftruncate(fd, off_t(fileSize)) != 0 || (fsync == .always && fdatasync(fd) != 0) {
        condition.lock()
        broken = error
        condition.unlock()
      }
      throw error
    }
  }

  private func truncate() throws {
    guard ftruncate(fd, 0) == 0 else { throw Self.error("truncate", path) }
    if fsync == .always, fdatasync(fd) != 0 { throw Self.error("fdatasync", path) }
    fileSize = 0
  }

  // MARK: Opening

  /// Applies every whole record to the tables (waiting until durable), then empties the file.
  private func replay() throws {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    guard !bytes.isEmpty else { return }
    let (payloads, length) = JournalFormat.records(bytes)
    if length < bytes.count {
      logger.warning(
        "journal: dropped a record cut short by a crash (never acknowledged)",
        metadata: ["bytes": "\(bytes.count - length)", "path": "\(path)"])
    }
    var changes = 0
    for payload in payloads {
      guard let decoded = JournalFormat.changes(payload) else {
        throw StoreError.sqlite(
          code: 1, message: "\(path): a record that is not keyspace changes; moved aside?")
      }
      changes += decoded.count
    }
    if !payloads.isEmpty {
      let done = DispatchSemaphore(value: 0)
      let outcome = LockedResult()
      store.commit([JournalWrite(payloads: payloads, changeCount: changes)]) {
        outcome.set($0)
        done.signal()
      }
      done.wait()
      try outcome.get()
      logger.info(
        "journal: replayed into the store",
        metadata: ["records": "\(payloads.count)", "changes": "\(changes)"])
    }
    fileSize = bytes.count
    try truncate()
  }

  private static func syncDirectory(_ directory: String) throws {
    let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard dir >= 0 else { throw error("open", directory) }
    defer { Foundation.close(dir) }
    guard Foundation.fsync(dir) == 0 else { throw error("fsync", directory) }
  }

  private static func error(_ operation: String, _ path: String) -> StoreError {
    StoreError.sqlite(
      code: 10, message: "\(operation) \(path): \(String(cString: strerror(errno)))")
  }
}

/// A result handed from a completion to a waiting thread.
private final class LockedResult: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Result<Void, any Error> = .success(())

  func set(_ result: Result<Void, any Error>) { lock.withLock { self.result = result } }
  func get() throws { try lock.withLock { result }.get() }
}

/// Journal records applied to the tables, decoded as they apply, through the transaction's one
/// `ChangeWriter`: only the encoded bytes wait in memory, not the changes.
struct JournalWrite: SQLiteWrite {
  let payloads: [ArraySlice<UInt8>]
  let changeCount: Int

  var needsSavepoint: Bool { false }

  func apply(to db: GRDB.Database) throws { try apply(try ChangeWriter(db)) }

  func apply(in transaction: StoreTransaction) throws {
    try apply(try transaction.shared(ChangeWriter.self) { try ChangeWriter($0) })
  }

  private func apply(_ writer: ChangeWriter) throws {
    for payload in payloads {
      guard let changes = JournalFormat.changes(payload) else {
        throw StoreError.sqlite(code: 1, message: "keyspace journal: unreadable record")
      }
      for change in changes { try writer.apply(change) }
    }
  }
}
