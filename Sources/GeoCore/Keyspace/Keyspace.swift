import SpatialIndex

/// What a key holds.
public enum Value: Sendable {
  case string(Bytes)
  case sortedSet(SortedSet)

  /// The name TYPE replies with.
  public var typeName: String {
    switch self {
    case .string: "string"
    case .sortedSet: "zset"
    }
  }
}

/// The data: Redis's sixteen numbered databases of keys, held in memory.
///
/// Concurrency: one readers-writer lock over everything. Reads (searches) from every event
/// loop run side by side; a write holds the lock for one command.
public final class Keyspace: @unchecked Sendable {
  public static let databaseCount = 16
  private let lock = SlottedRWLock()
  /// The databases live as long as the keyspace (a flush empties one in place).
  private let databases: [Database]
  /// The same databases, unretained: a read borrows one without writing its reference count,
  /// a cache line every event loop would otherwise fight over on every command.
  private let lent: [Unmanaged<Database>]

  public init() {
    databases = (0..<Self.databaseCount).map { _ in Database() }
    lent = databases.map { Unmanaged.passUnretained($0) }
  }

  /// Runs `body` with shared access to the databases.
  public func read<T>(_ body: (Databases) throws -> T) rethrows -> T {
    try lock.readers.withReadLock { try body(Databases(keyspace: self)) }
  }

  /// Runs `body` with shared access to database `db`, lent without a retain.
  public func read<T>(db: Int, _ body: (Database) throws -> T) rethrows -> T {
    try lock.readers.withReadLock { try lent[db]._withUnsafeGuaranteedRef { try body($0) } }
  }

  /// Runs `body` with exclusive access; every change it makes is appended to `changes`.
  public func write<T>(_ body: (inout Writer) throws -> T) rethrows -> (T, [Change]) {
    try lock.withWriteLock {
      var writer = Writer(keyspace: self)
      let result = try body(&writer)
      return (result, writer.changes)
    }
  }

  /// Runs `body` with exclusive access, and hands its changes (if any) to `log` before the lock
  /// is released: the log receives writes in the order they were made.
  public func write<T>(
    log: some ChangeLog, _ body: (inout Writer) throws -> T
  ) rethrows -> (T, Commit?) {
    try lock.withWriteLock {
      var writer = Writer(keyspace: self)
      let result = try body(&writer)
      return (result, writer.changes.isEmpty ? nil : log.append(writer.changes))
    }
  }

  /// Runs `body` with exclusive access, to apply what another node wrote: its changes are not
  /// returned, since they are not this node's to make durable.
  public func applyFollowed<T>(_ body: (inout Writer) throws -> T) rethrows -> T {
    try lock.withWriteLock {
      var writer = Writer(keyspace: self)
      return try body(&writer)
    }
  }

  /// Fills the keyspace from a stream of stored records (`.setString` and `.geoUpsert`,
  /// grouped by key), building each sorted set in one pass.
  public func load(_ stream: ((Change) throws -> Void) throws -> Void) rethrows {
    var current: (db: Int, key: Bytes)?
    var entries: [(member: Bytes, score: Double)] = []
    func finish() {
      guard let (db, key) = current, !entries.isEmpty else { return }
      databases[db].store(.sortedSet(SortedSet(entries: entries)), at: Key(key))
      entries = []
    }
    try lock.withWriteLock {
      try stream { change in
        switch change {
        case .geoUpsert(let db, let key, let member, let score, _, _):
          if current?.db != db || current?.key != key {
            finish()
            current = (db, key)
          }
          entries.append((member, score))
        default:
          finish()
          current = nil
          var writer = Writer(keyspace: self)
          writer.apply(change)
        }
      }
      finish()
    }
  }

  /// Read access to the databases.
  public struct Databases {
    let keyspace: Keyspace

    public subscript(db: Int) -> Database { keyspace.databases[db] }
  }

  /// Write access: every mutation goes through here, so each is logged as a `Change`.
  public struct Writer {
    let keyspace: Keyspace
    public private(set) var changes: [Change] = []

    public func database(_ db: Int) -> Database { keyspace.databases[db] }

    /// Replaces whatever `key` holds with a string.
    public mutating func setString(db: Int, key: Bytes, value: Bytes) {
      if case .sortedSet = keyspace.databases[db].entries[Key(key)] { delete(db: db, key: key) }
      keyspace.databases[db].store(.string(value), at: Key(key))
      changes.append(.setString(db: db, key: key, value: value))
    }

    /// Deletes a key; returns whether it existed.
    @discardableResult
    public mutating func delete(db: Int, key: Bytes) -> Bool {
      guard keyspace.databases[db].store(nil, at: Key(key)) != nil else { return false }
      changes.append(.deleteKey(db: db, key: key))
      return true
    }

    /// The sorted set at `key`, created empty if the key is missing. The caller has checked
    /// that the key does not hold another type.
    public mutating func sortedSet(db: Int, key: Bytes) -> SortedSet {
      if case .sortedSet(let set) = keyspace.databases[db].entries[Key(key)] { return set }
      let set = SortedSet()
      keyspace.databases[db].store(.sortedSet(set), at: Key(key))
      return set
    }

    /// Adds or moves a member of a sorted set.
    @discardableResult
    public mutating func upsert(db: Int, key: Bytes, set: SortedSet, member: Bytes, score: Double)
      -> (added: Bool, changed: Bool)
    {
      let result = set.upsert(member, score: score)
      if result.changed {
        let at = SortedSet.position(score: score)
        changes.append(
          .geoUpsert(
            db: db, key: key, member: member, score: score, longitude: at.longitude,
            latitude: at.latitude))
      }
      return result
    }

    /// Removes a member; an emptied sorted set disappears, as in Redis.
    @discardableResult
    public mutating func remove(db: Int, key: Bytes, set: SortedSet, member: Bytes) -> Bool {
      guard set.remove(member) else { return false }
      changes.append(.geoRemove(db: db, key: key, member: member))
      if set.count == 0 { keyspace.databases[db].store(nil, at: Key(key)) }
      return true
    }

    /// Drops an empty sorted set that a write created but did not fill.
    public mutating func dropIfEmpty(db: Int, key: Bytes) {
      if case .sortedSet(let set) = keyspace.databases[db].entries[Key(key)], set.count == 0 {
        keyspace.databases[db].store(nil, at: Key(key))
      }
    }

    public mutating func flush(db: Int) {
      keyspace.databases[db].removeAll()
      changes.append(.flushDatabase(db: db))
    }

    public mutating func flushAll() {
      for database in keyspace.databases { database.removeAll() }
      changes.append(.flushAll)
    }

    /// Removes every member of the sorted set at `key` but those in `keeping` (a string there
    /// is deleted): another node's DEL, whose later local writes to some members must stay.
    public mutating func removeMembers(db: Int, key: Bytes, keeping: Set<Bytes>) {
      switch keyspace.databases[db].entries[Key(key)] {
      case .sortedSet(let set):
        let doomed = set.entries(ranks: 0...(set.count - 1), reverse: false)
          .filter { !keeping.contains($0.member) }
        for (member, _) in doomed { remove(db: db, key: key, set: set, member: member) }
      case .string: delete(db: db, key: key)
      case nil: break
      }
    }

    /// Makes `change` here, as a write of this node's own would.
    public mutating func apply(_ change: Change) {
      switch change {
      case .geoUpsert(let db, let key, let member, let score, _, _):
        if case .string = keyspace.databases[db].entries[Key(key)] { delete(db: db, key: key) }
        upsert(db: db, key: key, set: sortedSet(db: db, key: key), member: member, score: score)
      case .geoRemove(let db, let key, let member):
        if case .sortedSet(let set) = keyspace.databases[db].entries[Key(key)] {
          remove(db: db, key: key, set: set, member: member)
        }
      case .setString(let db, let key, let value): setString(db: db, key: key, value: value)
      case .deleteKey(let db, let key): delete(db: db, key: key)
      case .flushDatabase(let db): flush(db: db)
      case .flushAll: flushAll()
      }
    }
  }
}

/// One numbered database: its keys. Guarded by the keyspace's lock.
public final class Database: @unchecked Sendable {
  private(set) var entries: [Key: Value] = [:]
  /// The sorted sets of `entries` again, unretained, for `withSortedSet`.
  private var sets: [Key: Unmanaged<SortedSet>] = [:]

  public var count: Int { entries.count }

  public subscript(key: Bytes) -> Value? { entries[Key(key)] }

  /// The value at a key given as bytes in place (say, a command's argument).
  public subscript(key: UnsafeRawBufferPointer) -> Value? { entries[Key(key)] }

  /// Runs `body` with the sorted set at `key`, or nil when the key is missing; returns nil
  /// without running it when the key holds another type. The set is lent without a retain:
  /// searches from every event loop would otherwise all write its reference count.
  public func withSortedSet<R>(at key: UnsafeRawBufferPointer, _ body: (SortedSet?) -> R) -> R? {
    let key = Key(key)
    if let set = sets[key] { return set._withUnsafeGuaranteedRef { body($0) } }
    return entries[key] == nil ? body(nil) : nil
  }

  /// Sets or (with nil) removes the value at `key`; returns the value it replaces.
  @discardableResult
  func store(_ value: Value?, at key: Key) -> Value? {
    if case .sortedSet(let set)? = value {
      sets[key] = Unmanaged.passUnretained(set)
    } else {
      sets[key] = nil
    }
    guard let value else { return entries.removeValue(forKey: key) }
    return entries.updateValue(value, forKey: key)
  }

  func removeAll() {
    sets = [:]
    entries = [:]
  }

  /// Every key, in no particular order.
  public var keys: [Bytes] { entries.keys.map(\.bytes) }

  /// Every sorted set with its key, in no particular order.
  public var sortedSets: [(key: Bytes, set: SortedSet)] {
    entries.compactMap { key, value in
      guard case .sortedSet(let set) = value else { return nil }
      return (key.bytes, set)
    }
  }
}
