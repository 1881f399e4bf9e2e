import Keyspace
import Logging
import NIOCore
import PostgresNIO
import PostgresStore

/// Moving a whole keyspace into a database (`cardatlas migrate --to`), and checking it arrived.
public enum KeyspaceTransfer {
  public struct NotEmpty: Error, CustomStringConvertible {
    public var description: String {
      "the database's keyspace tables already hold data: migrate into an empty database"
    }
  }

  /// Writes `changes` (a whole keyspace as `.setString` and `.geoUpsert`) into `store`'s empty
  /// tables, in commits of `chunk` changes. The feed carries them as any write's, so nodes
  /// already following apply them.
  public static func fill(
    _ store: PostgresStore, with changes: [Change], chunk: Int = 20_000, logger: Logger
  ) async throws {
    let empty = try await store.snapshot { connection, _ in
      try await connection.query(
        "SELECT NOT EXISTS (SELECT 1 FROM geo_members) AND NOT EXISTS (SELECT 1 FROM strings)",
        logger: logger
      ).collect().first?.decode(Bool.self) ?? false
    }
    guard empty else { throw NotEmpty() }
    var start = 0
    while start < changes.count {
      let end = min(start + chunk, changes.count)
      try await store.commit([KeyspaceChangesWrite(changes: Array(changes[start..<end]))])
      start = end
    }
  }

  /// What the database's keyspace tables hold, summed up as `KeyspaceSummary` does.
  public static func summary(of store: PostgresStore, logger: Logger) async throws
    -> KeyspaceSummary
  {
    KeyspaceSummary(
      try await store.snapshot { connection, _ in
        try await PostgresKeyspace.read(on: connection, logger: logger)
      })
  }
}

/// Counts and a checksum of a keyspace's contents, the same whatever order they are read in:
/// the wrapping sum of each string's and member's FNV-1a hash (db, key, member or value, and
/// the score's bits).
public struct KeyspaceSummary: Equatable, Sendable, CustomStringConvertible {
  public private(set) var keys = 0
  public private(set) var members = 0
  public private(set) var strings = 0
  public private(set) var checksum: UInt64 = 0

  public init(_ changes: [Change]) {
    var keys = Set<[UInt8]>()
    for change in changes {
      var hash = TransferChecksum()
      switch change {
      case .setString(let db, let key, let value):
        strings += 1
        keys.insert(Self.name(db, key))
        hash.add([0])
        hash.add(db)
        hash.add(key)
        hash.add(value)
      case .geoUpsert(let db, let key, let member, let score, _, _):
        members += 1
        keys.insert(Self.name(db, key))
        hash.add([1])
        hash.add(db)
        hash.add(key)
        hash.add(member)
        hash.add(score.bitPattern)
      default: continue
      }
      checksum &+= hash.value
    }
    self.keys = keys.count
  }

  private static func name(_ db: Int, _ key: [UInt8]) -> [UInt8] { [UInt8(db)] + key }

  public var description: String {
    func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
    return "\(count(keys, "key")) (\(count(members, "GEO member")), \(count(strings, "string"))),"
      + " checksum " + String(checksum, radix: 16)
  }
}
