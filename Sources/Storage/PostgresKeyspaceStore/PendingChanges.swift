import Keyspace

/// This node's keyspace writes not yet back from the change feed, counted by what they touch: a
/// member, a whole key (SET, DEL), a database (FLUSHDB) or everything (FLUSHALL). Another node's
/// change to something pending is left out, since the local write commits later and wins.
struct PendingChanges {
  struct KeyRef: Hashable {
    let db: Int
    /// Nil: the whole database.
    let key: Bytes?
  }

  private var members: [KeyRef: [Bytes: Int]] = [:]
  private var keys: [KeyRef: Int] = [:]
  private var databases: [Int: Int] = [:]
  private var all = 0
  /// This node's writes not yet back, each counted once per change (INFO's
  /// `feed_own_changes_pending`).
  private(set) var count = 0

  mutating func add(_ changes: [Change], by delta: Int) {
    count = max(0, count + delta * changes.count)
    for change in changes {
      switch change {
      case .geoUpsert(let db, let key, let member, _, _, _),
        .geoRemove(let db, let key, let member):
        let ref = KeyRef(db: db, key: key)
        let count = (members[ref]?[member] ?? 0) + delta
        if count > 0 {
          members[ref, default: [:]][member] = count
        } else {
          members[ref]?[member] = nil
          if members[ref]?.isEmpty == true { members[ref] = nil }
        }
      case .setString(let db, let key, _), .deleteKey(let db, let key):
        Self.count(&keys, KeyRef(db: db, key: key), delta)
      case .flushDatabase(let db):
        Self.count(&databases, db, delta)
      case .flushAll:
        all = max(0, all + delta)
      }
    }
  }

  private static func count<K: Hashable>(_ table: inout [K: Int], _ key: K, _ delta: Int) {
    let count = (table[key] ?? 0) + delta
    table[key] = count > 0 ? count : nil
  }

  /// Applies another node's change, but for what is pending here.
  func apply(_ change: Change, with writer: inout Keyspace.Writer) {
    switch change {
    case .geoUpsert(let db, let key, let member, _, _, _), .geoRemove(let db, let key, let member):
      let ref = KeyRef(db: db, key: key)
      guard !wholeDatabasePending(db), keys[ref] == nil, members[ref]?[member] == nil else {
        return
      }
      writer.apply(change)
    case .setString(let db, let key, _), .deleteKey(let db, let key):
      let ref = KeyRef(db: db, key: key)
      guard !wholeDatabasePending(db), keys[ref] == nil else { return }
      if let kept = members[ref] {
        // The key goes, but for the members written here since.
        writer.removeMembers(db: db, key: key, keeping: Set(kept.keys))
      } else {
        writer.apply(change)
      }
    case .flushDatabase(let db):
      guard !wholeDatabasePending(db) else { return }
      flush(db, with: &writer)
    case .flushAll:
      guard all == 0 else { return }
      for db in 0..<Keyspace.databaseCount where databases[db] == nil { flush(db, with: &writer) }
    }
  }

  private func wholeDatabasePending(_ db: Int) -> Bool { all > 0 || databases[db] != nil }

  /// Empties `db` but for the keys and members written here since.
  private func flush(_ db: Int, with writer: inout Keyspace.Writer) {
    let touched = members.keys.contains { $0.db == db } || keys.keys.contains { $0.db == db }
    guard touched else { return writer.apply(.flushDatabase(db: db)) }
    for key in writer.database(db).keys {
      let ref = KeyRef(db: db, key: key)
      if keys[ref] != nil { continue }
      if let kept = members[ref] {
        writer.removeMembers(db: db, key: key, keeping: Set(kept.keys))
      } else {
        writer.apply(.deleteKey(db: db, key: key))
      }
    }
  }

  /// The keys a change touches (a nil key: the whole database; every database for FLUSHALL).
  static func keys(of change: Change) -> [KeyRef] {
    switch change {
    case .geoUpsert(let db, let key, _, _, _, _), .geoRemove(let db, let key, _),
      .setString(let db, let key, _), .deleteKey(let db, let key):
      [KeyRef(db: db, key: key)]
    case .flushDatabase(let db): [KeyRef(db: db, key: nil)]
    case .flushAll: (0..<Keyspace.databaseCount).map { KeyRef(db: $0, key: nil) }
    }
  }
}
