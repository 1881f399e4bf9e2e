import Dispatch
import Foundation
import GRDB
import NIOConcurrencyHelpers
import Webhooks

/// The webhooks' outbox in `hooks.sqlite` beside the store (`HookOutbox`). Writes go through one
/// thread that puts all that waits in one transaction (group commit), each piece of work in a
/// savepoint of its own.
public final class SQLiteHookOutbox: HookOutbox {
  public typealias Event = OutboxEvent
  private enum Work {
    case append([(hook: String, payload: Data)], created: Int64, HookOutboxDone<[Int64]>)
    case settle(Settlement, @Sendable () -> Void)
    case other(@Sendable (Database) throws -> Void, HookOutboxDone<Void>)
  }

  public let path: String
  private let pool: DatabasePool
  private let waiting = NIOLockedValueBox<(work: [Work], writing: Bool)>(([], false))
  private let writer = DispatchQueue(label: "cardatlas.outbox")

  /// Opens (creating) the outbox in `directory`; `durable`: each transaction is fsynced
  /// (the store's `--fsync always`).
  public init(directory: String, durable: Bool) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    path = directory + "/hooks.sqlite"
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = \(durable ? "FULL" : "NORMAL")")
    }
    pool = try DatabasePool(path: path, configuration: configuration)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("hooks-v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE hooks (name TEXT PRIMARY KEY, definition TEXT NOT NULL);
          CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            hook TEXT NOT NULL,
            payload BLOB NOT NULL,
            created INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            due INTEGER NOT NULL DEFAULT 0,
            dead INTEGER NOT NULL DEFAULT 0,
            error TEXT);
          CREATE INDEX events_by_hook ON events (hook, dead, id);
          """)
    }
    try migrator.migrate(pool)
  }

  // MARK: Reads

  public func hooks() throws -> [Hook] {
    try pool.read { db in
      try String.fetchAll(db, sql: "SELECT definition FROM hooks ORDER BY name").map {
        try JSONDecoder().decode(Hook.self, from: Data($0.utf8))
      }
    }
  }

  public func counts() throws -> [String: (pending: Int, dead: Int)] {
    try pool.read { db in
      var counts: [String: (pending: Int, dead: Int)] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT hook, dead, count(*) AS n FROM events GROUP BY hook, dead")
      {
        let hook: String = row["hook"]
        let n: Int = row["n"]
        if row["dead"] as Int == 0 {
          counts[hook, default: (0, 0)].pending = n
        } else {
          counts[hook, default: (0, 0)].dead = n
        }
      }
      return counts
    }
  }

  public func pending(_ hook: String, after id: Int64, limit: Int) throws -> [Event] {
    try pool.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM events WHERE hook = ? AND dead = 0 AND id > ? ORDER BY id LIMIT ?
          """, arguments: [hook, id, limit]
      ).map(Self.event)
    }
  }

  public func dead(_ hook: String, limit: Int) throws -> [Event] {
    try pool.read { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM events WHERE hook = ? AND dead = 1 ORDER BY id LIMIT ?",
        arguments: [hook, limit]
      ).map(Self.event)
    }
  }

  private static func event(_ row: Row) -> Event {
    Event(
      id: row["id"], hook: row["hook"], payload: row["payload"], created: row["created"],
      attempts: row["attempts"], due: row["due"], error: row["error"])
  }

  // MARK: Writes

  public func append(
    _ events: [(hook: String, payload: Data)], created: Int64,
    done: @escaping HookOutboxDone<[Int64]>
  ) {
    submit(.append(events, created: created, done))
  }

  public func settle(_ settlement: Settlement, done: @escaping @Sendable () -> Void) {
    submit(.settle(settlement, done))
  }

  public func save(_ hook: Hook, done: @escaping HookOutboxDone<Void>) {
    let definition = String(decoding: (try? JSONEncoder().encode(hook)) ?? Data(), as: UTF8.self)
    submit(
      .other(
        { db in
          try db.execute(
            sql: "INSERT OR REPLACE INTO hooks (name, definition) VALUES (?, ?)",
            arguments: [hook.name, definition])
        }, done))
  }

  public func delete(_ hook: String, done: @escaping HookOutboxDone<Void>) {
    submit(
      .other(
        { db in
          try db.execute(sql: "DELETE FROM hooks WHERE name = ?", arguments: [hook])
          try db.execute(sql: "DELETE FROM events WHERE hook = ?", arguments: [hook])
        }, done))
  }

  public func replay(_ hook: String, ids: [Int64]?, now: Int64, done: @escaping HookOutboxDone<Int>)
  {
    let count = NIOLockedValueBox(0)
    submit(
      .other(
        { db in
          let chosen =
            ids.map { " AND id IN (\($0.map(String.init).joined(separator: ",")))" } ?? ""
          try db.execute(
            sql: "UPDATE events SET dead = 0, attempts = 0, due = ? WHERE hook = ? AND dead = 1"
              + chosen, arguments: [now, hook])
          count.withLockedValue { $0 = db.changesCount }
        }, { result in done(result.map { count.withLockedValue { $0 } }) }))
  }

  private func submit(_ work: Work) {
    let start = waiting.withLockedValue { w -> Bool in
      w.work.append(work)
      defer { w.writing = true }
      return !w.writing
    }
    if start { writer.async { self.drain() } }
  }

  private func drain() {
    while true {
      let batch = waiting.withLockedValue { w -> [Work] in
        defer { w.work = [] }
        if w.work.isEmpty { w.writing = false }
        return w.work
      }
      guard !batch.isEmpty else { return }
      write(batch)
    }
  }

  /// One transaction for the whole batch; each piece of work its own savepoint, so that one
  /// failing fails only its own.
  private func write(_ batch: [Work]) {
    var answers: [() -> Void] = []
    var deadHooks: Set<String> = []
    let result = Result {
      try pool.writeWithoutTransaction { db in
        try db.inTransaction {
          for work in batch {
            switch work {
            case .append(let events, let created, let done):
              var ids: [Int64] = []
              ids.reserveCapacity(events.count)
              let statement = try db.cachedStatement(
                sql: "INSERT INTO events (hook, payload, created, due) VALUES (?, ?, ?, ?)")
              for event in events {
                try statement.execute(arguments: [event.hook, event.payload, created, created])
                ids.append(db.lastInsertedRowID)
              }
              answers.append { done(.success(ids)) }
            case .settle(let settlement, let done):
              try Self.write(settlement, db, deadHooks: &deadHooks)
              answers.append(done)
            case .other(let body, let done):
              do {
                try db.inSavepoint {
                  try body(db)
                  return .commit
                }
                answers.append { done(.success(())) }
              } catch {
                answers.append { done(.failure(error)) }
              }
            }
          }
          for hook in deadHooks {
            try db.execute(
              sql: """
                DELETE FROM events WHERE hook = ? AND dead = 1 AND id <= (
                  SELECT id FROM events WHERE hook = ? AND dead = 1
                  ORDER BY id DESC LIMIT 1 OFFSET ?)
                """, arguments: [hook, hook, HookOutboxLimits.deadLetters])
          }
          return .commit
        }
      }
    }
    if case .failure(let error) = result {
      for work in batch {
        switch work {
        case .append(_, _, let done): done(.failure(error))
        case .other(_, let done): done(.failure(error))
        case .settle(_, let done): done()
        }
      }
      return
    }
    for answer in answers { answer() }
  }

  private static func write(_ settlement: Settlement, _ db: Database, deadHooks: inout Set<String>)
    throws
  {
    switch settlement {
    case .delivered(let id):
      try db.cachedStatement(sql: "DELETE FROM events WHERE id = ?").execute(arguments: [id])
    case .retry(let id, let attempts, let due, let error):
      try db.cachedStatement(
        sql: "UPDATE events SET attempts = ?, due = ?, error = ? WHERE id = ?"
      ).execute(arguments: [attempts, due, error, id])
    case .dead(let id, let hook, let attempts, let error):
      try db.cachedStatement(
        sql: "UPDATE events SET dead = 1, attempts = ?, error = ? WHERE id = ?"
      ).execute(arguments: [attempts, error, id])
      deadHooks.insert(hook)
    }
  }
}
