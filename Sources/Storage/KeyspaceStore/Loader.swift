import Foundation
import GRDB
import GRDBSQLite
import Keyspace
import Store

/// Streams the stored keys as the changes that recreate them, ordered by (db, key) across both
/// tables (SQLite orders BLOBs by memcmp, then length, as `compare` does), members of a GEO key
/// ordered by member.
///
/// Rows are read with the C API straight into `[UInt8]`: the only allocations per row are the
/// member (or value) bytes; a key shared by consecutive rows is allocated once.
enum Loader {
  static func load(_ db: GRDB.Database, _ body: (Change) throws -> Void) throws {
    let strings = try db.makeStatement(sql: "SELECT db, key, value FROM strings ORDER BY db, key")
    let geo = try db.makeStatement(
      sql: """
        SELECT db, key, member, score, longitude, latitude FROM geo_members
        ORDER BY db, key, member
        """)
    let s = strings.sqliteStatement
    let g = geo.sqliteStatement
    var hasString = try step(strings, db)
    var hasGeo = try step(geo, db)
    var key: Bytes = []
    var keyDb: Int64 = -1
    while hasString || hasGeo {
      let takeString = hasString && (!hasGeo || compare(s, g) <= 0)
      let row = takeString ? s : g
      let dbIndex = sqlite3_column_int64(row, 0)
      let keyBytes = blob(row, 1)
      if dbIndex != keyDb || !keyBytes.elementsEqual(key) {
        key = Bytes(keyBytes)
        keyDb = dbIndex
      }
      if takeString {
        try body(.setString(db: Int(dbIndex), key: key, value: Bytes(blob(s, 2))))
        hasString = try step(strings, db)
      } else {
        try body(
          .geoUpsert(
            db: Int(dbIndex), key: key, member: Bytes(blob(g, 2)),
            score: sqlite3_column_double(g, 3),
            longitude: sqlite3_column_double(g, 4), latitude: sqlite3_column_double(g, 5)))
        hasGeo = try step(geo, db)
      }
    }
  }

  private static func step(_ statement: Statement, _ db: GRDB.Database) throws -> Bool {
    switch sqlite3_step(statement.sqliteStatement) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let rc:
      throw DatabaseError(
        resultCode: ResultCode(rawValue: rc),
        message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
    }
  }

  /// The current row's column bytes, valid until the next step.
  private static func blob(_ s: OpaquePointer, _ column: CInt) -> UnsafeRawBufferPointer {
    // The pointer first, then the size: the order SQLite documents as safe.
    let p = sqlite3_column_blob(s, column)
    return UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(s, column)))
  }

  /// Orders two rows by (db, key), as SQLite orders them.
  private static func compare(_ a: OpaquePointer, _ b: OpaquePointer) -> Int {
    let da = sqlite3_column_int64(a, 0)
    let db = sqlite3_column_int64(b, 0)
    if da != db { return da < db ? -1 : 1 }
    let ka = blob(a, 1)
    let kb = blob(b, 1)
    let common = min(ka.count, kb.count)
    if common > 0, let pa = ka.baseAddress, let pb = kb.baseAddress {
      let c = memcmp(pa, pb, common)
      if c != 0 { return Int(c) }
    }
    return ka.count - kb.count
  }
}
