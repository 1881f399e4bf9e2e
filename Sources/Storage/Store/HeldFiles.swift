import Foundation
import GRDB
import Synchronization

/// What the domain held in memory at the last clean stop, kept in files beside the store, so
/// that the next start loads it flat instead of rebuilding it from every row (a million cards:
/// docs/BENCHMARKS.md). A file is trusted only while the store is exactly as it was when the
/// file was written:
/// - it begins with a random token, which the store records (`held_files`) in the last commit
///   before it closes, after every other write;
/// - every opening of the store takes the tokens out, durably, before any other write: a start
///   after a crash, an import or a migration finds none and reads the rows;
/// - a write that failed, or was refused, since the store opened (memory may hold what the
///   store does not), any commit between the file's making and its token, or after the token,
///   and any commit refused because the store had closed, leave no file.
final class HeldFiles: Sendable {
  private struct State {
    /// The tokens the store held when it opened, by name.
    var found: [String: Data] = [:]
    /// What runs as the store closes, before its last commit (`Store.whenClosing`).
    var closing: [@Sendable () -> Void] = []
    /// Files written this run, and the store's commands once their tokens were durable.
    var kept: [String] = []
    var commandsAtToken: Int?
  }

  private let directory: String
  private let state = Mutex(State())

  init(directory: String) { self.directory = directory }

  /// Takes the tokens out of the store (the caller writes nothing before this returns).
  func takeTokens(_ pool: DatabasePool) throws {
    let found = try pool.write { db -> [String: Data] in
      let rows = try Row.fetchAll(db, sql: "SELECT name, token FROM held_files")
      if !rows.isEmpty { try db.execute(sql: "DELETE FROM held_files") }
      return Dictionary(rows.map { ($0["name"], $0["token"]) }, uniquingKeysWith: { a, _ in a })
    }
    state.withLock { $0.found = found }
  }

  func path(_ name: String) -> String { directory + "/" + name + ".held" }

  /// The file kept under `name` at the last clean stop, without its token, if its token was
  /// the store's; taken: the file is removed.
  func take(_ name: String) -> Data? {
    guard let token = state.withLock({ $0.found.removeValue(forKey: name) }) else { return nil }
    let path = path(name)
    defer { unlink(path) }
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
      data.prefix(token.count) == token
    else { return nil }
    return data.dropFirst(token.count)
  }

  func whenClosing(_ body: @escaping @Sendable () -> Void) {
    state.withLock { $0.closing.append(body) }
  }

  func runClosing() {
    for body in state.withLock({ s in
      defer { s.closing = [] }
      return s.closing
    }) { body() }
  }

  /// Keeps `make()`'s bytes under `name`, unless the store cannot vouch for them (above).
  /// Blocks until the token is durable.
  func keep(_ name: String, store: Store, make: () -> [UInt8]?) throws {
    // Everything queued before reaches the tables: the count below covers it.
    try store.commitAndWait([])
    let before = store.statistics
    guard before.failedTransactions == 0, before.refusedCommands == 0, let bytes = make()
    else { return }
    let token = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    let path = path(name)
    try Self.write(token + bytes, to: path)
    state.withLock { $0.kept.append(name) }
    try store.commitAndWait([
      TransactionWrite { db in
        try db.execute(
          sql: "INSERT OR REPLACE INTO held_files (name, token) VALUES (?, ?)",
          arguments: [name, token])
      }
    ])
    let after = store.statistics
    if after.commands == before.commands + 1, after.failedTransactions == 0,
      after.refusedCommands == 0
    {
      state.withLock { $0.commandsAtToken = after.commands }
    } else {
      forget()
    }
  }

  /// After the store's last commit: the files stand only if nothing was committed after them.
  func closed(_ statistics: StoreStatistics) {
    let stands = state.withLock { s in
      s.commandsAtToken == statistics.commands && statistics.failedTransactions == 0
        && statistics.refusedCommands == 0
    }
    if !stands { forget() }
  }

  /// The files kept this run are not to be trusted (a token without its file is no file).
  func forget() {
    for name in state.withLock({ s in
      defer { s.kept = [] }
      return s.kept
    }) {
      unlink(path(name))
    }
  }

  private static func write(_ data: Data, to path: String) throws {
    let partial = path + ".partial"
    try data.write(to: URL(fileURLWithPath: partial))
    try syncPath(partial)
    guard rename(partial, path) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    try syncPath((path as NSString).deletingLastPathComponent, directory: true)
  }
}

extension Store {
  /// Runs `body` as the store closes, after every other write and before its last commit:
  /// where the domain keeps what it holds (`keepHeld`). Not when closed from the writer thread.
  public func whenClosing(_ body: @escaping @Sendable () -> Void) {
    held.whenClosing(body)
  }

  /// What was kept under `name` at the last clean stop (`keepHeld`), if the store has not been
  /// written since; taken once: nil to every later call, and after the next opening.
  public func takeHeld(_ name: String) -> Data? { held.take(name) }

  /// Keeps `make()`'s bytes beside the store under `name` for the next start, unless a write
  /// failed or was refused this run (or `make` answers nil); waits until they are durable.
  /// Call it from `whenClosing`, once no other write can come.
  public func keepHeld(_ name: String, _ make: () -> [UInt8]?) throws {
    try held.keep(name, store: self, make: make)
  }
}
