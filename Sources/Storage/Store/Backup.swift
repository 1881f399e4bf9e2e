import Foundation
import GRDB

enum Backup {
  /// Copies `pool` to `destination` through a partial file, so that `destination` is always
  /// either the previous backup or a complete new one.
  static func copy(from pool: DatabasePool, to destination: String) throws {
    let partial = destination + ".partial"
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(partial + suffix) }
    let copy = try DatabaseQueue(path: partial)
    do {
      // All pages in one step, inside one read transaction of a pool reader: a consistent
      // snapshot, and the writer goes on meanwhile (WAL).
      try pool.backup(to: copy)
      // The copied header says WAL: leave a single self-contained file instead.
      try copy.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
      }
      try copy.close()
    } catch {
      try? copy.close()
      unlink(partial)
      throw error
    }
    try syncPath(partial)
    guard rename(partial, destination) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    let directory = (destination as NSString).deletingLastPathComponent
    try syncPath(directory.isEmpty ? "." : directory, directory: true)
  }
}
