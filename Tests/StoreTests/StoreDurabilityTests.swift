import Foundation
import GRDB
import Keyspace
import Synchronization
import Testing

@testable import KeyspaceStore
@testable import Store

@Suite struct StoreDurabilityTests {
  /// A completion must run only once its transaction is committed: another connection, which
  /// sees committed data only, must already see the command's changes from inside it.
  @Test(arguments: [FsyncPolicy.always, .batch])
  func completionsRunOnlyAfterTheTransactionCommitted(_ policy: FsyncPolicy) async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, fsync: policy)
      defer { store.close() }
      var config = Configuration()
      config.readonly = true
      let observer = try DatabaseQueue(path: store.path, configuration: config)
      let seen = Mutex<[Int]>([])
      let done = DispatchGroup()
      for i in 0..<60 {
        done.enter()
        store.commit(changes: [
          move("fleet", "m\(i)", 1, 1), .setString(db: 0, key: bytes("s\(i)"), value: [1]),
        ]) { result in
          let visible =
            (try? observer.read { db in
              try Int.fetchOne(
                db,
                sql: """
                  SELECT (SELECT count(*) FROM geo_members WHERE member = CAST(?1 AS BLOB))
                    + (SELECT count(*) FROM strings WHERE key = CAST(?2 AS BLOB))
                  """, arguments: ["m\(i)", "s\(i)"])
            }) ?? nil
          if case .success = result, visible == 2 { seen.withLock { $0.append(i) } }
          done.leave()
        }
      }
      done.wait()
      #expect(seen.withLock { $0.sorted() } == Array(0..<60))
      try observer.close()
    }
  }

  @Test func backupIsAConsistentCopyWhileCommitsGoOn() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir + "/live")
      defer { store.close() }
      var seed: [Change] = []
      for i in 0..<5000 { seed.append(move("fleet", "seed\(i)", Double(i % 360) - 180, 10)) }
      try await store.commit(changes: seed)
      // Each command writes a pair of members: a consistent copy holds both or neither.
      let writer = Task {
        for i in 0..<400 {
          try await store.commit(changes: [
            move("pairs", "a\(i)", 1, 1), move("pairs", "b\(i)", 2, 2),
          ])
        }
      }
      try await Task.sleep(for: .milliseconds(20))
      try FileManager.default.createDirectory(
        atPath: dir + "/copy", withIntermediateDirectories: true)
      try store.backup(to: dir + "/copy/cardatlas.sqlite")
      try await writer.value
      #expect(!FileManager.default.fileExists(atPath: dir + "/copy/cardatlas.sqlite.partial"))
      #expect(!FileManager.default.fileExists(atPath: dir + "/copy/cardatlas.sqlite-wal"))
      let stats = store.statistics
      #expect(
        stats.lastBackupTime != nil && stats.lastBackupError == nil && stats.backupsInProgress == 0)

      let copy = try openStore(dir + "/copy")
      defer { copy.close() }
      let copied = try copy.loadAll()
      let members = Set(
        copied.compactMap { change -> String? in
          guard case .geoUpsert(_, let key, let member, _, _, _) = change, key == bytes("pairs")
          else { return nil }
          return String(decoding: member, as: UTF8.self)
        })
      #expect(copied.count - members.count == 5000)
      for name in members {
        let twin = (name.hasPrefix("a") ? "b" : "a") + name.dropFirst()
        #expect(members.contains(twin), "\(name) without \(twin)")
      }
      #expect(try copy.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
      try StoreSpatialTests.checkIndexInvariant(copy)
      // The live store has everything.
      #expect(try store.loadAll().count == 5000 + 800)
    }
  }

  @Test func aFailedTransactionFailsEachOfItsCommandsAndTheStoreGoesOn() async throws {
    try await withTemporaryDirectory { dir in
      var tuning = Tuning.default
      tuning.busyTimeout = 0.1
      let store = try openStore(dir, tuning: tuning)
      defer { store.close() }
      try await store.commit(changes: [move("fleet", "kept", 1, 1)])

      // Another process holds the write lock past the busy timeout.
      let other = try WriteLockHolder(path: store.path)
      let errors = Mutex<[StoreError]>([])
      let done = DispatchGroup()
      for i in 0..<5 {
        done.enter()
        store.commit(changes: [move("fleet", "lost\(i)", 2, 2)]) { result in
          if case .failure(let error as StoreError) = result {
            errors.withLock { $0.append(error) }
          }
          done.leave()
        }
      }
      done.wait()
      other.release()
      let failed = errors.withLock { $0 }
      #expect(failed.count == 5)
      #expect(failed.allSatisfy { if case .locked = $0 { true } else { false } })
      #expect("\(failed[0])".contains("locked"))

      try await store.commit(changes: [move("fleet", "after", 3, 3)])
      #expect(try store.loadAll() == [move("fleet", "after", 3, 3), move("fleet", "kept", 1, 1)])
      #expect(store.statistics.failedTransactions >= 1)
      #expect(store.statistics.lastError?.contains("locked") == true)
    }
  }

  @Test func aFullDiskGivesAClearErrorAndTheStoreRecovers() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      // SQLite's page limit fails writes exactly as ENOSPC does: SQLITE_FULL.
      let pages = try store.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
      try store.onWriter("PRAGMA max_page_count = \(pages + 4)")
      let big = Bytes(repeating: 0x5a, count: 64 * 1024)
      await #expect {
        try await store.commit(changes: [
          .setString(db: 0, key: bytes("big"), value: big), move("g", "m", 1, 1),
        ])
      } throws: { error in
        guard case .diskFull(let path, _) = error as? StoreError else { return false }
        return path == store.path && "\(error)".contains("disk full")
      }
      try store.onWriter("PRAGMA max_page_count = 1000000000")
      try await store.commit(changes: [.setString(db: 0, key: bytes("big"), value: big)])
      #expect(try store.loadAll() == [.setString(db: 0, key: bytes("big"), value: big)])
    }
  }

  @Test func aReadOnlyDatabaseGivesAClearError() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      // Root ignores file modes; query_only fails writes with SQLITE_READONLY as a read-only
      // file does.
      try store.onWriter("PRAGMA query_only = 1")
      await #expect {
        try await store.commit(changes: [move("g", "m", 1, 1)])
      } throws: { error in
        guard case .readOnly = error as? StoreError else { return false }
        return "\(error)".contains("read-only")
      }
      try store.onWriter("PRAGMA query_only = 0")
      try await store.commit(changes: [move("g", "m", 1, 1)])
      #expect(try store.loadAll() == [move("g", "m", 1, 1)])
    }
  }

  /// Writers that never pause: the checkpointer copies beside them, the writer finishes the
  /// copying itself, and the WAL keeps restarting instead of growing with every commit.
  @Test func sustainedWritesKeepTheWalBounded() async throws {
    try await withTemporaryDirectory { dir in
      var tuning = Tuning.default
      tuning.checkpointPages = 256
      tuning.walTailPages = 64
      tuning.maximumWalPages = 1024
      let store = try openStore(dir, fsync: .batch, tuning: tuning)
      var largest: Int64 = 0
      for round in 0..<400 {
        // About 2,000 members rewritten over and over: the same pages again and again, as moves.
        try await store.commit(
          changes: (0..<50).map { i in
            move("fleet", "m\((round * 50 + i) % 2000)", Double(round % 90), Double(i))
          })
        largest = max(largest, fileSize(store.path + "-wal"))
      }
      let pageSize = try store.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } ?? 1024
      // Each frame is a page and a 24-byte header; a round adds at most a few hundred frames.
      #expect(largest < Int64((tuning.maximumWalPages + 2048) * (pageSize + 24)))
      #expect(try store.loadAll().count == 2000)
      store.close()
    }
  }

  /// A WAL grown long (a bulk load) is cut back when it restarts, so that later commits append
  /// frames instead of writing over old blocks, which the OS may have to read back from disk.
  @Test func aWalGrownPastItsLimitIsCutWhenItRestarts() async throws {
    try await withTemporaryDirectory { dir in
      var tuning = Tuning.default
      tuning.checkpointPages = 256
      tuning.walTailPages = 64
      tuning.maximumWalPages = 1 << 20
      tuning.walFileLimit = 256 << 10
      // This is the cut at a restart: a pause (a slow test machine) must not empty the file first.
      tuning.idleTruncateDelay = 3600
      let store = try openStore(dir, fsync: .batch, tuning: tuning)
      defer { store.close() }
      try await store.commit(changes: (0..<20_000).map { move("fleet", "m\($0)", 1, 1) })
      let grown = fileSize(store.path + "-wal")
      #expect(grown > 2 << 20)
      // Small writes go on while the checkpointer copies the rest; the first round after it has
      // finished restarts the WAL.
      var size = grown
      for round in 0..<500 where size >= grown {
        try await store.commit(changes: [move("fleet", "m\(round)", 2, 2)])
        size = fileSize(store.path + "-wal")
        try await Task.sleep(for: .milliseconds(10))
      }
      #expect(size <= Int64(tuning.walFileLimit), "WAL \(size) bytes, grown to \(grown)")
      #expect(try store.loadAll().count == 20_000)
    }
  }

  /// A pause empties the WAL file, so that the next burst appends frames rather than writing
  /// over old blocks that the OS may have evicted meanwhile (and must then read back first).
  @Test func aPauseEmptiesTheWalFile() async throws {
    try await withTemporaryDirectory { dir in
      var tuning = Tuning.default
      tuning.idleTruncateDelay = 0.2
      let store = try openStore(dir, tuning: tuning)
      defer { store.close() }
      for round in 0..<3 {
        // Measured in the completion, on the writer thread: before it can go idle.
        let committed = Atomic<Int64>(-1)
        let path = store.path + "-wal"
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
          store.commit(changes: (0..<500).map { move("fleet", "m\($0)", Double(round), 1) }) {
            result in
            committed.store(fileSize(path), ordering: .relaxed)
            done.resume(with: result)
          }
        }
        #expect(committed.load(ordering: .relaxed) > 0, "round \(round): the commit is in the WAL")
        var size = fileSize(path)
        for _ in 0..<100 where size > 0 {
          try await Task.sleep(for: .milliseconds(50))
          size = fileSize(path)
        }
        #expect(size == 0, "round \(round): the WAL still holds \(size) bytes after the pause")
      }
      let longitudes = try store.loadAll().compactMap { change -> Double? in
        if case .geoUpsert(_, _, _, _, let longitude, _) = change { return longitude }
        return nil
      }
      #expect(longitudes.count == 500)
      #expect(longitudes.allSatisfy { $0 == 2 })
    }
  }

  @Test func closeDrainsTheQueueIsIdempotentAndRefusesLaterWork() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      let succeeded = Atomic<Int>(0)
      for i in 0..<300 {
        store.commit(changes: [move("fleet", "m\(i)", 0, 0)]) { result in
          if case .success = result { succeeded.add(1, ordering: .relaxed) }
        }
      }
      store.close()
      store.close()
      #expect(succeeded.load(ordering: .relaxed) == 300)
      // The WAL was checkpointed into the file and emptied.
      #expect(fileSize(store.path + "-wal") == 0)
      await #expect(throws: StoreError.closed) {
        try await store.commit(changes: [move("fleet", "late", 0, 0)])
      }
      #expect(throws: StoreError.closed) { try store.loadAll() }
      #expect(throws: StoreError.closed) { try store.backup(to: dir + "/b.sqlite") }

      let reopened = try openStore(dir)
      defer { reopened.close() }
      #expect(try reopened.loadAll().count == 300)
    }
  }

  /// A final checkpoint that cannot finish (another connection holds a snapshot) does not keep
  /// the store's connections open: `close()` closes them all the same.
  @Test func closeClosesTheConnectionsEvenWhenTheFinalCheckpointFails() async throws {
    try await withTemporaryDirectory { dir in
      var tuning = Tuning.default
      tuning.busyTimeout = 0.2
      // The WAL must still hold the commit when the snapshot is taken.
      tuning.idleTruncateDelay = 3600
      let store = try openStore(dir, tuning: tuning)
      try await store.commit(changes: [move("fleet", "a", 1, 2)])
      // Another connection holds a snapshot: TRUNCATE waits for it, then gives up.
      var holding = Configuration()
      holding.allowsUnsafeTransactions = true
      let other = try DatabaseQueue(path: store.path, configuration: holding)
      try other.inDatabase { db in
        try db.execute(sql: "BEGIN")
        #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM geo_members") == 1)
      }
      store.close()
      #expect(throws: (any Error).self) { try store.committer.pool.read { _ in } }
      try other.inDatabase { db in try db.execute(sql: "COMMIT") }
    }
  }

  @Test func closeFromACompletionDoesNotDeadlock() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
        store.commit(changes: [move("fleet", "m", 0, 0)]) { result in
          store.close()
          c.resume(with: result)
        }
      }
      store.close()  // waits for the writer to finish closing
      let reopened = try openStore(dir)
      defer { reopened.close() }
      #expect(try reopened.loadAll() == [move("fleet", "m", 0, 0)])
    }
  }

  @Test func anUncreatableDirectoryIsAClearError() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/plain-file"
      #expect(FileManager.default.createFile(atPath: file, contents: Data()))
      #expect {
        try openStore(file + "/var")
      } throws: { error in
        guard case .cannotCreateDirectory = error as? StoreError else { return false }
        return "\(error)".contains(file)
      }
    }
  }
}
