import Foundation
import GRDB
import Keyspace
import Logging
import Store

/// The keyspace's durability point: a command's changes are acknowledged once appended to the
/// journal (and fdatasynced, under `FsyncPolicy.always`), as Redis's AOF does, and are applied
/// to the store's tables behind it, in order, in the store's group commit.
///
/// - The journal is a sequence of segment files, `keyspace.journal.<n>` in the store's
///   directory. A segment past `segmentBytes` is closed and the next one opened; a closed
///   segment is deleted once the tables hold all its records. No write ever waits for that.
/// - The tables lag the journal by at most `maximumUnapplied` bytes of records (some 45 bytes
///   a GEO member); past that, acknowledgements wait for the tables, so a bulk load longer
///   than that runs at the tables' pace. The segments on disk stay within that bound plus one
///   segment.
/// - `close()` and `drain()` wait for the tables, so after a clean stop (or a BACKUP) the store
///   holds every acknowledged write, and GIS tools read it; a clean stop leaves no segment.
/// - At open, what a crash left is replayed into the tables before anything reads them, then
///   deleted. Every change sets a value outright (a member's position, a key's value, a key or
///   database gone), so replaying records the tables already hold leaves them as they were; a
///   record cut short by the crash was never acknowledged and is dropped.
public final class KeyspaceJournal: ChangeLog, @unchecked Sendable {
  public static let filePrefix = "keyspace.journal."

  public struct Limits: Sendable {
    public var maximumUnapplied = 64 << 20
    public var segmentBytes = 64 << 20
    public init() {}
  }

  private struct Queued {
    let payload: [UInt8]
    let count: Int
    let commit: Commit
  }

  private let store: Store
  private let fsync: FsyncPolicy
  private let limits: Limits
  private let logger: Logger
  private let directory: String
  private let finished = DispatchGroup()
  // Only the writer thread (and `init`, `close` around it) touches these three.
  private var fd: Int32 = -1
  private var segment = 0
  private var segmentSize = 0
  // `condition` guards everything below.
  private let condition = NSCondition()
  private var queue: [Queued] = []
  /// Records taken by the writer and not yet answered.
  private var writing = false
  /// Bytes of records written and not yet in the tables.
  private var unapplied = 0
  /// Records not yet in the tables, by segment; and the segments closed, to delete when none.
  private var outstanding: [Int: Int] = [:]
  private var closedSegments: Set<Int> = []
  private var closing = false
  /// A write to the tables failed: the journal keeps every record until a restart replays it.
  private var applyFailed = false
  /// A record could not be written nor cut back: no later record may follow it.
  private var broken: (any Error)?

  /// Replays into `store`'s tables what a crash left in the journal, deletes it, opens a new
  /// segment and starts the writer.
  public init(
    store: Store, fsync: FsyncPolicy, limits: Limits = Limits(), logger: Logger
  ) throws {
    self.store = store
    self.fsync = fsync
    self.limits = limits
    self.logger = logger
    directory = store.directory
    let left = try segments()
    try replay(left)
    for number in left { try remove(number) }
    try open(segment: (left.last ?? 0) + 1)
    finished.enter()
    let thread = Thread { [self] in run() }
    thread.name = "cardatlas-journal"
    thread.start()
  }

  /// Queues one write's changes, under the keyspace's lock (`ChangeLog`); the commit is
  /// answered, on the journal's thread, once they are durable in the journal (or could not be
  /// made so).
  public func append(_ changes: [Change]) -> Commit {
    // Encoded on the caller's thread: the event loops share the work the writer would do alone.
    var payload: [UInt8] = []
    for change in changes { ChangeCoding.append(change, to: &payload) }
    let commit = Commit()
    condition.lock()
    if closing || broken != nil {
      let error = broken ?? StoreError.closed
      condition.unlock()
      commit.complete(.failure(error))
      return commit
    }
    queue.append(Queued(payload: payload, count: changes.count, commit: commit))
    condition.broadcast()
    condition.unlock()
    return commit
  }

  /// `append`, returning once the changes are durable.
  public func commit(changes: [Change]) async throws {
    guard !changes.isEmpty else { return }
    let commit = append(changes)
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      commit.whenComplete { done.resume(with: $0) }
    }
  }

  /// Returns once every change acknowledged so far is in the store's tables.
  public func drain() {
    condition.lock()
    while !queue.isEmpty || writing || unapplied > 0 { condition.wait() }
    condition.unlock()
  }

  /// Writes what is queued, waits for the tables, and deletes the journal: the store alone then
  /// holds everything. Commits after this fail with `StoreError.closed`.
  public func close() {
    condition.lock()
    guard !closing else { return condition.unlock() }
    closing = true
    condition.broadcast()
    condition.unlock()
    finished.wait()
    drain()
    Foundation.close(fd)
    condition.lock()
    let keep = applyFailed || broken != nil
    condition.unlock()
    guard !keep else { return }
    do {
      for number in try segments() { try remove(number) }
    } catch {
      logger.warning("journal: could not delete its segments at close: \(error)")
    }
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
      condition.unlock()
      write(batch)
      condition.lock()
      writing = false
      condition.broadcast()
      condition.unlock()
    }
  }

  private func write(_ batch: [Queued]) {
    var payload: [UInt8] = []
    payload.reserveCapacity(batch.reduce(0) { $0 + $1.payload.count })
    for queued in batch { payload += queued.payload }
    let record = JournalFormat.record(payload)
    let written: Int
    do {
      if segmentSize > limits.segmentBytes { try rotate() }
      try append(record)
      written = segment
    } catch {
      for queued in batch { queued.commit.complete(.failure(error)) }
      return
    }
    condition.lock()
    unapplied += record.count
    outstanding[written, default: 0] += 1
    condition.unlock()
    let count = batch.reduce(0) { $0 + $1.count }
    store.commit([JournalWrite(payloads: [payload[...]], changeCount: count)]) {
      [self] result in applied(record.count, of: written, result)
    }
    for queued in batch { queued.commit.complete(.success(())) }
  }

  /// A record is in the tables (or failed to get there): a closed segment whose records are
  /// all there goes.
  private func applied(_ bytes: Int, of number: Int, _ result: Result<Void, any Error>) {
    condition.lock()
    unapplied -= bytes
    outstanding[number, default: 0] -= 1
    if case .failure(let error) = result {
      applyFailed = true
      logger.error(
        "journal: changes not applied to the store's tables; kept for the next start",
        metadata: ["error": "\(error)"])
    }
    let done = outstanding[number] == 0 && closedSegments.contains(number) && !applyFailed
    if done {
      outstanding[number] = nil
      closedSegments.remove(number)
    }
    condition.broadcast()
    condition.unlock()
    if done {
      do { try remove(number) } catch {
        logger.warning("journal: could not delete an applied segment: \(error)")
      }
    }
  }

  /// Closes the segment (its records are durable already) and opens the next.
  private func rotate() throws {
    let closed = segment
    try open(segment: segment + 1)
    condition.lock()
    let done = (outstanding[closed] ?? 0) == 0 && !applyFailed
    if done { outstanding[closed] = nil } else { closedSegments.insert(closed) }
    condition.unlock()
    if done { try remove(closed) }
  }

  /// Appends a record, durably under `.always`. A failure cuts the segment back to where it
  /// was, so that no record ever follows a torn one.
  private func append(_ record: [UInt8]) throws {
    do {
      var written = 0
      try record.withUnsafeBytes { bytes in
        while written < bytes.count {
          let n = pwrite(
            fd, bytes.baseAddress! + written, bytes.count - written,
            off_t(segmentSize + written))
          if n < 0 {
            if errno == EINTR { continue }
            throw Self.error("write", path(segment))
          }
          written += n
        }
      }
      if fsync == .always, fdatasync(fd) != 0 { throw Self.error("fdatasync", path(segment)) }
      segmentSize += record.count
    } catch {
      if ftruncate(fd, off_t(segmentSize)) != 0 || (fsync == .always && fdatasync(fd) != 0) {
        condition.lock()
        broken = error
        condition.unlock()
      }
      throw error
    }
  }

  // MARK: Files

  private func path(_ number: Int) -> String {
    (directory as NSString).appendingPathComponent(Self.filePrefix + String(number))
  }

  /// The segments in the directory, oldest first.
  private func segments() throws -> [Int] {
    try FileManager.default.contentsOfDirectory(atPath: directory)
      .compactMap { $0.hasPrefix(Self.filePrefix) ? Int($0.dropFirst(Self.filePrefix.count)) : nil }
      .sorted()
  }

  /// Opens a new, empty segment, its name durable in the directory before any record in it is
  /// acknowledged.
  private func open(segment number: Int) throws {
    let opened = Foundation.open(path(number), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard opened >= 0 else { throw Self.error("open", path(number)) }
    if fsync == .always {
      do { try syncDirectory() } catch {
        Foundation.close(opened)
        throw error
      }
    }
    if fd >= 0 { Foundation.close(fd) }
    fd = opened
    segment = number
    segmentSize = 0
  }

  private func remove(_ number: Int) throws {
    guard unlink(path(number)) == 0 || errno == ENOENT else {
      throw Self.error("unlink", path(number))
    }
  }

  private func syncDirectory() throws {
    let dir = Foundation.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard dir >= 0 else { throw Self.error("open", directory) }
    defer { Foundation.close(dir) }
    guard Foundation.fsync(dir) == 0 else { throw Self.error("fsync", directory) }
  }

  /// Applies every whole record of the segments, in order, to the tables (waiting until
  /// durable).
  private func replay(_ numbers: [Int]) throws {
    var payloads: [ArraySlice<UInt8>] = []
    var changes = 0
    for number in numbers {
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(number))))
      let (whole, length) = JournalFormat.records(bytes)
      if length < bytes.count {
        logger.warning(
          "journal: dropped a record cut short by a crash (never acknowledged)",
          metadata: ["bytes": "\(bytes.count - length)", "path": "\(path(number))"])
      }
      for payload in whole {
        guard let decoded = ChangeCoding.changes(payload) else {
          throw StoreError.sqlite(
            code: 1, message: "\(path(number)): a record that is not keyspace changes")
        }
        changes += decoded.count
      }
      payloads += whole
      // A torn record ends the journal: nothing after it was acknowledged.
      if length < bytes.count { break }
    }
    guard !payloads.isEmpty else { return }
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
      guard let changes = ChangeCoding.changes(payload) else {
        throw StoreError.sqlite(code: 1, message: "keyspace journal: unreadable record")
      }
      for change in changes { try writer.apply(change) }
    }
  }
}
