import Foundation
import GRDB
import Keyspace
import Synchronization
import Testing

@testable import KeyspaceStore
@testable import Store

/// What domain modules bring to the store: migrations of their own, and writes that commit in
/// the same transactions as the keyspace's changes.
@Suite struct StoreExtensionTests {
  /// A domain's table, and a write of one row to it.
  static let notes = StoreMigration(
    "test-notes-v1",
    sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)")

  struct AddNote: SQLiteWrite {
    let id: Int
    let text: String
    func apply(to db: GRDB.Database) throws {
      try db.execute(sql: "INSERT INTO notes (id, text) VALUES (?, ?)", arguments: [id, text])
    }
  }

  struct Refused: Error, Equatable {}
  struct ThrowingWrite: SQLiteWrite {
    func apply(to db: GRDB.Database) throws { throw Refused() }
  }

  /// The shipped migrations are frozen copies: after them, the triggers are exactly those the
  /// store recreates when it truncates the members' table.
  @Test func theFrozenMigrationsLeaveTheTriggersTheStoreRecreates() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir)
      defer { store.close() }
      func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      }
      let stored = try store.read { db in
        try String.fetchAll(
          db,
          sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'geo_members'"
        )
      }
      #expect(
        Set(stored.map(normalized)) == Set(KeyspaceTables.spatialIndexTriggers.map(normalized)))
    }
  }

  @Test func aDomainMigrationRunsOnceAfterTheStoresOwn() async throws {
    try await withTemporaryDirectory { dir in
      for _ in 0..<2 {
        let store = try openStore(dir, migrations: [Self.notes])
        let applied = try store.read { db in
          try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
        #expect(applied == ["v1", "v2", "v3", "test-notes-v1"])
        store.close()
      }
      // A store opened without the domain keeps its table and rows.
      let store = try openStore(dir)
      defer { store.close() }
      #expect(try store.read { db in try db.tableExists("notes") })
    }
  }

  @Test func domainWritesCommitWithTheKeyspaceChangesAndSurviveAReopen() async throws {
    try await withTemporaryDirectory { dir in
      do {
        let store = try openStore(dir, migrations: [Self.notes])
        try await store.commit([
          KeyspaceWrite(changes: [move("fleet", "a", 1, 2)]), AddNote(id: 1, text: "one"),
          AddNote(id: 2, text: "two"),
        ])
        store.close()
      }
      let store = try openStore(dir, migrations: [Self.notes])
      defer { store.close() }
      #expect(try store.loadAll().count == 1)
      let texts = try store.read { db in
        try String.fetchAll(db, sql: "SELECT text FROM notes ORDER BY id")
      }
      #expect(texts == ["one", "two"])
    }
  }

  final class Log: Sendable {
    let ids = Mutex<[Int]>([])
  }

  /// A write that records when it is told its transaction is durable.
  struct Told: SQLiteWrite {
    let id: Int
    let log: Log
    func apply(to db: GRDB.Database) throws {
      try db.execute(sql: "INSERT INTO notes (id, text) VALUES (?, ?)", arguments: [id, "t\(id)"])
    }
    func committed() { log.ids.withLock { $0.append(id) } }
  }

  /// `committed` runs once the transaction is durable, before the command's completion, and
  /// never for a command whose writes failed.
  @Test func committedRunsOnlyForDurableWrites() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, migrations: [Self.notes])
      let log = Log()
      let toldFirst = Mutex<[Int: Bool]>([:])
      let done = DispatchGroup()
      for i in 0..<20 {
        done.enter()
        let writes: [any DurableWrite] =
          i == 7 ? [Told(id: i, log: log), ThrowingWrite()] : [Told(id: i, log: log)]
        store.commit(writes) { _ in
          let told = log.ids.withLock { $0.contains(i) }
          toldFirst.withLock { $0[i] = told }
          done.leave()
        }
      }
      done.wait()
      store.close()
      #expect(Set(log.ids.withLock { $0 }) == Set((0..<20).filter { $0 != 7 }))
      let expected = Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, $0 != 7) })
      #expect(toldFirst.withLock { $0 } == expected)
    }
  }

  /// Commands queued together share a transaction; one whose write breaks a constraint or
  /// throws fails alone, with nothing of it kept, and the others are durable.
  @Test func aFailingDomainWriteFailsOnlyItsOwnCommand() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, migrations: [Self.notes])
      let results = Mutex<[Int: Result<Void, any Error>]>([:])
      let done = DispatchGroup()
      for i in 0..<200 {
        done.enter()
        let writes: [any DurableWrite] =
          switch i {
          case 50: [AddNote(id: 1_050, text: "n3")]  // a text already taken by command 3
          case 120: [AddNote(id: 1_120, text: "fine"), ThrowingWrite()]
          default: [AddNote(id: i, text: "n\(i)")]
          }
        store.commit([KeyspaceWrite(changes: [move("fleet", "m\(i)", 1, 1)])] + writes) { result in
          results.withLock { $0[i] = result }
          done.leave()
        }
      }
      done.wait()
      store.close()
      let failed = results.withLock { r in r.filter { (try? $0.value.get()) == nil }.keys.sorted() }
      #expect(failed == [50, 120])
      let thrown = results.withLock { r -> Bool in
        if case .failure(let error) = r[120]! { return error is Refused }
        return false
      }
      #expect(thrown)

      let reopened = try openStore(dir, migrations: [Self.notes])
      defer { reopened.close() }
      let members = Set(
        try reopened.loadAll().compactMap { change -> String? in
          guard case .geoUpsert(_, _, let member, _, _, _) = change else { return nil }
          return String(decoding: member, as: UTF8.self)
        })
      #expect(members == Set((0..<200).filter { $0 != 50 && $0 != 120 }.map { "m\($0)" }))
      let ids = try reopened.read { db in try Int.fetchAll(db, sql: "SELECT id FROM notes") }
      #expect(Set(ids) == Set((0..<200).filter { $0 != 50 && $0 != 120 }))
    }
  }

  /// A write outside a savepoint of its own (`inSavepoint` false: a bulk import's chunk) commits
  /// like any other, and its error fails the whole transaction: nothing of it, nor of the
  /// commands that shared the transaction, is kept.
  @Test func aWriteOutsideASavepointCommitsOrFailsItsTransaction() async throws {
    try await withTemporaryDirectory { dir in
      let store = try openStore(dir, migrations: [Self.notes])
      defer { store.close() }
      let chunk = TransactionWrite(inSavepoint: false) { db in
        for i in 0..<100 {
          try db.execute(
            sql: "INSERT INTO notes (id, text) VALUES (?, ?)", arguments: [i, "c\(i)"])
        }
      }
      try await store.commit([chunk])
      let results = Mutex<[Int: Result<Void, any Error>]>([:])
      let done = DispatchGroup()
      // Queued while the writer may be held by a slow first command: at least the other two
      // share a transaction.
      let hold = TransactionWrite { _ in usleep(200_000) }
      let failing = TransactionWrite(inSavepoint: false) { db in
        try db.execute(sql: "INSERT INTO notes (id, text) VALUES (500, 'kept?')")
        throw Refused()
      }
      let commands: [[any DurableWrite]] = [[hold], [AddNote(id: 600, text: "other")], [failing]]
      for (i, writes) in commands.enumerated() {
        done.enter()
        store.commit(writes) { result in
          results.withLock { $0[i] = result }
          done.leave()
        }
      }
      done.wait()
      let failed = results.withLock { r in r.filter { (try? $0.value.get()) == nil }.keys.sorted() }
      let ids = try store.read { db in
        try Int.fetchAll(db, sql: "SELECT id FROM notes ORDER BY id")
      }
      // The hold may have had a transaction alone, or shared the failed one.
      #expect(failed == [1, 2] || failed == [0, 1, 2], "\(failed)")
      #expect(ids == Array(0..<100))
    }
  }
}
