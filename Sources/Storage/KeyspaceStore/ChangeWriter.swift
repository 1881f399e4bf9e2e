import GRDB
import GRDBSQLite
import Keyspace
import Store

/// Applies changes inside the writer's open transaction, in order.
///
/// GRDB's cached statements are bound and stepped through the C API: blobs are bound straight
/// from the `[UInt8]` storage (SQLITE_STATIC, valid until the step returns), so a change costs
/// no `DatabaseValue`, `Data` or arguments array. The `Statement` objects are held, not just
/// their handles, because DDL (the truncate fast path) may evict them from GRDB's cache.
final class ChangeWriter {
  private let db: GRDB.Database
  private let geoMove: Statement
  private let geoInsert: Statement
  private let geoRemove: Statement
  private let setString: Statement
  private let deleteString: Statement
  private let deleteGeoKey: Statement
  private let geoKeyExists: Statement
  private let geoOtherKeysExist: Statement
  private let deleteStringsOfDb: Statement
  private let deleteGeoOfDb: Statement
  private let geoOtherDbsExist: Statement

  init(_ db: GRDB.Database) throws {
    self.db = db
    // A move of an existing member is an UPDATE: cheaper than an UPSERT, which first builds the
    // row to insert and allocates it a rowid. Its WHERE skips a member that did not move; then
    // changes() is 0, and the INSERT adds the member if it is new. The box centre stays while
    // the member is within the slack of it (see KeyspaceTables.spatialIndexTriggers); the expressions
    // read the row's values from before the update.
    let keepsBox = """
      abs(?5 - index_longitude) <= \(KeyspaceTables.indexSlack)
        AND abs(?6 - index_latitude) <= \(KeyspaceTables.indexSlack)
      """
    geoMove = try db.cachedStatement(
      sql: """
        UPDATE geo_members SET score = ?4, longitude = ?5, latitude = ?6,
          geom = MakePoint(?5, ?6, 4326),
          index_longitude = CASE WHEN \(keepsBox) THEN index_longitude ELSE ?5 END,
          index_latitude = CASE WHEN \(keepsBox) THEN index_latitude ELSE ?6 END
        WHERE db = ?1 AND key = ?2 AND member = ?3
          AND (score <> ?4 OR longitude <> ?5 OR latitude <> ?6)
        """)
    geoInsert = try db.cachedStatement(
      sql: """
        INSERT INTO geo_members (
          db, key, member, score, longitude, latitude, geom, index_longitude, index_latitude)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, MakePoint(?5, ?6, 4326), ?5, ?6)
        ON CONFLICT (db, key, member) DO NOTHING
        """)
    geoRemove = try db.cachedStatement(
      sql: "DELETE FROM geo_members WHERE db = ?1 AND key = ?2 AND member = ?3")
    setString = try db.cachedStatement(
      sql: """
        INSERT INTO strings (db, key, value) VALUES (?1, ?2, ?3)
        ON CONFLICT (db, key) DO UPDATE SET value = excluded.value
        """)
    deleteString = try db.cachedStatement(sql: "DELETE FROM strings WHERE db = ?1 AND key = ?2")
    deleteGeoKey = try db.cachedStatement(
      sql: "DELETE FROM geo_members WHERE db = ?1 AND key = ?2")
    geoKeyExists = try db.cachedStatement(
      sql: "SELECT 1 FROM geo_members WHERE db = ?1 AND key = ?2 LIMIT 1")
    // Row-value bounds, so that both probes are index seeks.
    geoOtherKeysExist = try db.cachedStatement(
      sql: """
        SELECT EXISTS (SELECT 1 FROM geo_members WHERE (db, key) < (?1, ?2))
          OR EXISTS (SELECT 1 FROM geo_members WHERE (db, key) > (?1, ?2))
        """)
    deleteStringsOfDb = try db.cachedStatement(sql: "DELETE FROM strings WHERE db = ?1")
    deleteGeoOfDb = try db.cachedStatement(sql: "DELETE FROM geo_members WHERE db = ?1")
    geoOtherDbsExist = try db.cachedStatement(
      sql: """
        SELECT EXISTS (SELECT 1 FROM geo_members WHERE db < ?1)
          OR EXISTS (SELECT 1 FROM geo_members WHERE db > ?1)
        """)
  }

  func apply(_ change: Change) throws {
    switch change {
    case .geoUpsert(let dbIndex, let key, let member, let score, let longitude, let latitude):
      try key.withUnsafeBytes { k in
        try member.withUnsafeBytes { m in
          // Both statements take the same parameters.
          func run(_ statement: Statement) throws -> Bool {
            let s = statement.sqliteStatement
            sqlite3_bind_int64(s, 1, Int64(dbIndex))
            bindBlob(s, 2, k)
            bindBlob(s, 3, m)
            sqlite3_bind_double(s, 4, score)
            sqlite3_bind_double(s, 5, longitude)
            sqlite3_bind_double(s, 6, latitude)
            _ = try step(statement)
            return sqlite3_changes(db.sqliteConnection) > 0
          }
          if try !run(geoMove) { _ = try run(geoInsert) }
        }
      }
    case .geoRemove(let dbIndex, let key, let member):
      try key.withUnsafeBytes { k in
        try member.withUnsafeBytes { m in _ = try step(geoRemove, dbIndex, k, m) }
      }
    case .setString(let dbIndex, let key, let value):
      try key.withUnsafeBytes { k in
        try value.withUnsafeBytes { v in _ = try step(setString, dbIndex, k, v) }
      }
    case .deleteKey(let dbIndex, let key):
      // A key lives in one table, but deleting from both is what makes a type change safe.
      try key.withUnsafeBytes { k in
        _ = try step(deleteString, dbIndex, k)
        guard try step(geoKeyExists, dbIndex, k) else { return }
        if try flag(geoOtherKeysExist, dbIndex, k) {
          _ = try step(deleteGeoKey, dbIndex, k)
        } else {
          try KeyspaceTables.truncateGeoMembers(db)
        }
      }
    case .flushDatabase(let dbIndex):
      _ = try step(deleteStringsOfDb, dbIndex)
      if try flag(geoOtherDbsExist, dbIndex) {
        _ = try step(deleteGeoOfDb, dbIndex)
      } else {
        try truncateGeoMembersIfAny()
      }
    case .flushAll:
      try db.execute(sql: "DELETE FROM strings")
      try truncateGeoMembersIfAny()
    }
  }

  private func truncateGeoMembersIfAny() throws {
    if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM geo_members)") == true {
      try KeyspaceTables.truncateGeoMembers(db)
    }
  }

  /// Steps a statement bound with (db), (db, key) or (db, key, blob); true if it produced a row.
  private func step(
    _ statement: Statement, _ dbIndex: Int, _ key: UnsafeRawBufferPointer? = nil,
    _ blob: UnsafeRawBufferPointer? = nil
  ) throws -> Bool {
    let s = statement.sqliteStatement
    sqlite3_bind_int64(s, 1, Int64(dbIndex))
    if let key { bindBlob(s, 2, key) }
    if let blob { bindBlob(s, 3, blob) }
    return try step(statement)
  }

  /// The single integer a SELECT EXISTS statement returns, as a Bool.
  private func flag(
    _ statement: Statement, _ dbIndex: Int, _ key: UnsafeRawBufferPointer? = nil
  ) throws -> Bool {
    let s = statement.sqliteStatement
    sqlite3_bind_int64(s, 1, Int64(dbIndex))
    if let key { bindBlob(s, 2, key) }
    let rc = sqlite3_step(s)
    guard rc == SQLITE_ROW else { try fail(statement, rc) }
    let value = sqlite3_column_int64(s, 0) != 0
    sqlite3_reset(s)
    return value
  }

  /// Runs a bound statement once; true if it produced a row.
  private func step(_ statement: Statement) throws -> Bool {
    let s = statement.sqliteStatement
    let rc = sqlite3_step(s)
    guard rc == SQLITE_DONE || rc == SQLITE_ROW else { try fail(statement, rc) }
    sqlite3_reset(s)
    return rc == SQLITE_ROW
  }

  private func fail(_ statement: Statement, _ rc: CInt) throws -> Never {
    let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
    sqlite3_reset(statement.sqliteStatement)
    throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: message, sql: statement.sql)
  }
}

/// Binds bytes without copying. An empty blob is bound as a zero-length blob: a nil pointer
/// would bind NULL.
@inline(__always)
func bindBlob(_ statement: OpaquePointer, _ index: CInt, _ bytes: UnsafeRawBufferPointer) {
  if let base = bytes.baseAddress, bytes.count > 0 {
    sqlite3_bind_blob64(statement, index, base, sqlite3_uint64(bytes.count), nil)
  } else {
    sqlite3_bind_zeroblob(statement, index, 0)
  }
}
