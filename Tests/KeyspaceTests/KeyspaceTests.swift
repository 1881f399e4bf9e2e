import Datasets
import Keyspace
import Testing

/// Reads borrow sorted sets from an unretained mirror of each database's keys: through every
/// kind of write, the mirror must answer exactly as the keys themselves do.
@Suite struct KeyspaceTests {
  /// What `withSortedSet` reports for a key: the set lent (by identity), none, or another type.
  enum Lent: Equatable {
    case set(ObjectIdentifier)
    case missing
    case wrongType
  }

  static func lent(_ db: Database, _ key: Bytes) -> Lent {
    key.withUnsafeBytes { bytes in
      db.withSortedSet(at: bytes) { set in
        set.map { Lent.set(ObjectIdentifier($0)) } ?? .missing
      } ?? .wrongType
    }
  }

  static func expected(_ value: Value?) -> Lent {
    switch value {
    case nil: .missing
    case .string: .wrongType
    case .sortedSet(let set): .set(ObjectIdentifier(set))
    }
  }

  @Test func lentSetsFollowEveryWrite() {
    var random = SeededGenerator(seed: 11)
    let keyspace = Keyspace()
    let keys = (0..<12).map { Array("key\($0)".utf8) }
    for step in 0..<5_000 {
      let db = random.nextInt(below: 3)
      let key = keys[random.nextInt(below: keys.count)]
      _ = keyspace.write { writer in
        switch random.nextInt(below: 20) {
        case 0..<5: writer.setString(db: db, key: key, value: [UInt8(step % 256)])
        case 5..<10:
          let set = writer.sortedSet(db: db, key: key)
          writer.upsert(db: db, key: key, set: set, member: [UInt8(step % 7)], score: 1)
        case 10..<14:
          if case .sortedSet(let set) = writer.database(db)[key] {
            writer.remove(db: db, key: key, set: set, member: [UInt8(step % 7)])
          }
        case 14..<18: writer.delete(db: db, key: key)
        case 18: writer.flush(db: db)
        default: writer.flushAll()
        }
      }
      keyspace.read { databases in
        for db in 0..<3 {
          for key in keys {
            #expect(Self.lent(databases[db], key) == Self.expected(databases[db][key]))
          }
        }
      }
    }
  }

  @Test func aReadLendsTheDatabaseItNames() {
    let keyspace = Keyspace()
    _ = keyspace.write { $0.setString(db: 5, key: Array("k".utf8), value: [1]) }
    #expect(keyspace.read(db: 5) { $0.count } == 1)
    #expect(keyspace.read(db: 4) { $0.count } == 0)
    _ = keyspace.write { $0.flushAll() }
    #expect(keyspace.read(db: 5) { $0.count } == 0)
  }
}
