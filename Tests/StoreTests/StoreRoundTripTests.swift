import Foundation
import GRDB
import Keyspace
import Synchronization
import Testing

@testable import KeyspaceStore
@testable import Store

@Suite struct StoreRoundTripTests {
  @Test func migratesAFreshFileAndReopensIt() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir + "/var")
      #expect(FileManager.default.fileExists(atPath: dir + "/var/cardatlas.sqlite"))
      try store.read { db in
        #expect(
          try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") == [
            "v1", "v2", "v3",
          ])
        for table in ["strings", "geo_members", "idx_geo_members_geom", "spatial_ref_sys"] {
          #expect(try db.tableExists(table), "\(table)")
        }
        // Registered as a SpatiaLite layer: POINT (1), XY, SRID 4326, spatial index on.
        let row = try #require(
          try Row.fetchOne(
            db,
            sql: """
              SELECT geometry_type, coord_dimension, srid, spatial_index_enabled
              FROM geometry_columns WHERE f_table_name = 'geo_members' AND f_geometry_column = 'geom'
              """))
        #expect(
          row[0] as Int == 1 && row[1] as Int == 2 && row[2] as Int == 4326 && row[3] as Int == 1)
        #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
        #expect(try Int.fetchOne(db, sql: "PRAGMA page_size") == Tuning.default.pageSize)
      }
      try await store.commit(changes: [
        move("fleet", "a", 2.35, 48.85), .setString(db: 0, key: bytes("s"), value: bytes("v")),
      ])
      store.close()

      let reopened = try openStore(dir + "/var")
      defer { reopened.close() }
      let migrations = try reopened.read { db in
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
      }
      #expect(migrations == ["v1", "v2", "v3"])
      #expect(
        try reopened.loadAll() == [
          move("fleet", "a", 2.35, 48.85), .setString(db: 0, key: bytes("s"), value: bytes("v")),
        ])
    }
  }

  @Test(arguments: [FsyncPolicy.always, .batch])
  func fsyncPolicySetsSynchronous(_ policy: FsyncPolicy) async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, fsync: policy)
      defer { store.close() }
      let synchronous = try store.committer.pool.writeWithoutTransaction {
        try Int.fetchOne($0, sql: "PRAGMA synchronous")
      }
      #expect(synchronous == (policy == .always ? 2 : 1))  // FULL : NORMAL
    }
  }

  @Test func everyChangeKindRoundTripsThroughLoad() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      let batches: [[Change]] = [
        [
          move("fleet", "a", 2.35, 48.85), move("fleet", "b", -0.12, 51.5),
          .geoUpsert(
            db: 0, key: bytes("fleet"), member: bytes("c"), score: 3_471_579_339_700_058,
            longitude: 13.4, latitude: 52.52),
          .setString(db: 0, key: bytes("greeting"), value: bytes("hello")),
          .setString(db: 1, key: bytes("other"), value: bytes("db1")),
          move("zones", "z", 139.69, 35.68, db: 3),
        ],
        [.geoRemove(db: 0, key: bytes("fleet"), member: bytes("b"))],
        [.geoRemove(db: 0, key: bytes("fleet"), member: bytes("missing"))],
        [move("fleet", "a", 2.36, 48.86)],
        // A distance stored by GEOSEARCHSTORE STOREDIST: not an integer score.
        [
          .geoUpsert(
            db: 0, key: bytes("dists"), member: bytes("d"), score: 1234.5678, longitude: 1,
            latitude: 2)
        ],
        [.setString(db: 0, key: bytes("greeting"), value: bytes("bye"))],
        [
          .setString(db: 0, key: bytes("temp"), value: bytes("x")),
          .deleteKey(db: 0, key: bytes("temp")),
        ],
        [.deleteKey(db: 0, key: bytes("never-there"))],
        [.flushDatabase(db: 3)],
      ]
      var model = Model()
      for batch in batches {
        try await store.commit(changes: batch)
        for change in batch { model.apply(change) }
      }
      let loaded = try store.loadAll()
      #expect(loaded == model.expectedLoad)
      #expect(loaded.count == 5)  // fleet a, c; dists d; greeting; db 1's other
      try await store.commit(changes: [.flushAll])
      #expect(try store.loadAll().isEmpty)
    }
  }

  @Test func binaryKeysMembersAndValuesRoundTripInBytewiseOrder() async throws {
    try await withTemporaryDirectory { dir in
      let odd: [Bytes] = [
        [], [0x00], [0x00, 0x00], [0xff], [0x0d, 0x0a], [0x61, 0x00, 0x62], [0xff, 0xfe, 0x00],
      ]
      let store = try openStore(dir)
      var model = Model()
      var changes: [Change] = []
      for (i, b) in odd.enumerated() {
        changes.append(
          .geoUpsert(
            db: 0, key: [0x67] + b, member: b, score: Double(i), longitude: Double(i), latitude: 0))
        changes.append(
          .geoUpsert(
            db: 0, key: [0x67], member: b, score: Double(i), longitude: 0, latitude: Double(i)))
        changes.append(.setString(db: 1, key: b, value: b + [0x0d, 0x0a] + b))
      }
      try await store.commit(changes: changes)
      for change in changes { model.apply(change) }
      let expected = model.expectedLoad
      #expect(try store.loadAll() == expected)
      store.close()
      // And the same after a reopen, from the file alone.
      let reopened = try openStore(dir)
      defer { reopened.close() }
      #expect(try reopened.loadAll() == expected)
    }
  }

  @Test func changesApplyInOrderInsideAndAcrossCommits() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      let k = bytes("k")
      // A string replaced by a GEO key in one command: deleteKey first, as the server emits it.
      try await store.commit(changes: [.setString(db: 0, key: k, value: bytes("v"))])
      try await store.commit(changes: [.deleteKey(db: 0, key: k), move("k", "m", 1, 2)])
      #expect(try store.loadAll() == [move("k", "m", 1, 2)])
      // And back: the GEO key replaced by a string.
      try await store.commit(changes: [
        .deleteKey(db: 0, key: k), .setString(db: 0, key: k, value: bytes("w")),
      ])
      #expect(try store.loadAll() == [.setString(db: 0, key: k, value: bytes("w"))])
      // Added then deleted in one command: nothing.
      try await store.commit(changes: [move("j", "m", 1, 2), .deleteKey(db: 0, key: bytes("j"))])
      #expect(try store.loadAll() == [.setString(db: 0, key: k, value: bytes("w"))])

      // Many commands queued back to back, without waiting: the last one wins, whatever
      // transactions they were grouped into.
      let done = DispatchGroup()
      for i in 0..<200 {
        done.enter()
        store.commit(changes: [
          move("seq", "m", Double(i) / 10, 0),
          .setString(db: 0, key: bytes("last"), value: bytes("\(i)")),
        ]) { _ in
          done.leave()
        }
      }
      done.wait()
      let loaded = try store.loadAll()
      #expect(loaded.contains(move("seq", "m", 19.9, 0)))
      #expect(loaded.contains(.setString(db: 0, key: bytes("last"), value: bytes("199"))))
    }
  }

  @Test func manyConcurrentCommittersAllCompleteAndLoadBack() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      let tasks = 8
      let commitsPerTask = 500
      try await withThrowingTaskGroup(of: Void.self) { group in
        for t in 0..<tasks {
          group.addTask {
            for i in 0..<commitsPerTask {
              let lon = Double(t * commitsPerTask + i) / 100 - 20
              try await store.commit(changes: [move("fleet", "t\(t)-\(i)", lon, Double(t))])
            }
          }
        }
        try await group.waitForAll()
      }
      let loaded = try store.loadAll()
      #expect(loaded.count == tasks * commitsPerTask)
      #expect(Set(loaded).count == tasks * commitsPerTask)
      let stats = store.statistics
      #expect(stats.commands == tasks * commitsPerTask)
      #expect(stats.changes == tasks * commitsPerTask)
      #expect(stats.transactions >= 1 && stats.transactions <= stats.commands)
      #expect(stats.failedTransactions == 0)
      #expect(stats.pendingCommands == 0)
      #expect(stats.databaseBytes > 0)
    }
  }

  /// While another process holds the write lock, everything queued waits; once it lets go, the
  /// writer takes what queued up in one transaction: group commit, made deterministic.
  @Test func commitsQueuedDuringATransactionShareTheNextOne() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      let before = store.statistics.transactions
      let other = try WriteLockHolder(path: store.path)
      let done = DispatchGroup()
      let failures = Atomic<Int>(0)
      for i in 0..<100 {
        done.enter()
        store.commit(changes: [move("g", "m\(i)", 0, 0)]) { result in
          if case .failure = result { failures.add(1, ordering: .relaxed) }
          done.leave()
        }
      }
      other.release()
      done.wait()
      #expect(failures.load(ordering: .relaxed) == 0)
      #expect(store.statistics.transactions - before <= 2)
      #expect(store.statistics.commands == 100)
      #expect(try store.loadAll().count == 100)
    }
  }
}
