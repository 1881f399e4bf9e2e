import Foundation
import GRDB
import GRDBSQLite
import Keyspace
import Logging

@testable import KeyspaceStore
@testable import Store

/// A fresh directory under the system temp dir, removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("cardatlas-store-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try await body(path)
}

let quietLogger: Logger = {
  var logger = Logger(label: "store-tests")
  logger.logLevel = .critical
  return logger
}()

func openStore(
  _ directory: String, fsync: FsyncPolicy = .always, migrations: [StoreMigration] = [],
  tuning: Tuning = .default
) throws -> Store {
  try Store(
    directory: directory, fsync: fsync, migrations: migrations, logger: quietLogger,
    tuning: tuning)
}

extension Store {
  func loadAll() throws -> [Change] {
    var changes: [Change] = []
    try load { changes.append($0) }
    return changes
  }

  /// Runs SQL on the writer connection, between two group-commit rounds.
  func onWriter(_ sql: String) throws {
    try committer.pool.writeWithoutTransaction { try $0.execute(sql: sql) }
  }
}

func bytes(_ s: String) -> Bytes { Array(s.utf8) }

func move(_ key: String, _ member: String, _ lon: Double, _ lat: Double, db: Int = 0) -> Change {
  .geoUpsert(
    db: db, key: bytes(key), member: bytes(member), score: 0, longitude: lon, latitude: lat)
}

/// What Redis holds after a sequence of changes, and the changes `load` must stream for it:
/// ordered by db, key (bytewise), member.
struct Model {
  enum Value: Equatable {
    case string(Bytes)
    case geo([Bytes: (score: Double, lon: Double, lat: Double)])
    static func == (a: Value, b: Value) -> Bool {
      switch (a, b) {
      case (.string(let x), .string(let y)): x == y
      case (.geo(let x), .geo(let y)):
        x.count == y.count
          && x.allSatisfy { k, v in y[k].map { $0 == v } ?? false }
      default: false
      }
    }
  }
  var dbs: [Int: [Bytes: Value]] = [:]

  mutating func apply(_ change: Change) {
    switch change {
    case .geoUpsert(let db, let key, let member, let score, let lon, let lat):
      var set: [Bytes: (score: Double, lon: Double, lat: Double)] = [:]
      if case .geo(let existing) = dbs[db]?[key] { set = existing }
      set[member] = (score, lon, lat)
      dbs[db, default: [:]][key] = .geo(set)
    case .geoRemove(let db, let key, let member):
      guard case .geo(var set) = dbs[db]?[key] else { return }
      set[member] = nil
      dbs[db]![key] = set.isEmpty ? nil : .geo(set)
    case .setString(let db, let key, let value):
      dbs[db, default: [:]][key] = .string(value)
    case .deleteKey(let db, let key):
      dbs[db]?[key] = nil
    case .flushDatabase(let db):
      dbs[db] = nil
    case .flushAll:
      dbs = [:]
    }
  }

  var expectedLoad: [Change] {
    var out: [Change] = []
    for db in dbs.keys.sorted() {
      for key in dbs[db]!.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
        switch dbs[db]![key]! {
        case .string(let value): out.append(.setString(db: db, key: key, value: value))
        case .geo(let set):
          for member in set.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let p = set[member]!
            out.append(
              .geoUpsert(
                db: db, key: key, member: member, score: p.score, longitude: p.lon,
                latitude: p.lat))
          }
        }
      }
    }
    return out
  }
}

/// Another process's connection holding the database's write lock until `release` (GRDB
/// refuses to leave a transaction open, so this one is plain SQLite).
final class WriteLockHolder: @unchecked Sendable {
  private var connection: OpaquePointer?

  init(path: String) throws {
    guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
      sqlite3_exec(connection, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK
    else { throw StoreError.sqlite(code: sqlite3_errcode(connection), message: "lock holder") }
  }

  func release() {
    sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
    sqlite3_close(connection)
    connection = nil
  }
}
