import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Knobs the tests and benchmarks turn; the defaults are what the server runs with.
struct Tuning: Sendable {
  /// Page size of a new database file. Small pages: a move dirties a few random pages, and each
  /// is written to the WAL and then checkpointed whole (1 KiB: 67k moves/s, 4 KiB: 49k).
  var pageSize = 1024
  /// The writer's page cache, in KiB: it holds the hot pages of 1M members. Under jemalloc each
  /// 1 KiB page and its headers take a 1,536-byte block: 32 MiB kept the 1M-point server at 2.03
  /// times redis-server's RSS (24 MiB: 1.96, moves as fast), and a 1M-row import's RSS grew by
  /// 51 to 54 MB (24 MiB: 22 to 29, rows as fast).
  var writerCacheKiB = 24 * 1024
  /// A checkpoint starts once the WAL holds this many pages (128 MiB of 1 KiB pages): a
  /// longer WAL holds more rewrites of the same pages, each copied once (32 MiB: 13% slower).
  var checkpointPages = 131_072
  /// The writer copies the last of the WAL itself once at most this much is left (4 MiB).
  var walTailPages = 4096
  /// The writer checkpoints regardless once the WAL holds this many pages (512 MiB).
  var maximumWalPages = 524_288
  /// The WAL file is cut back to this size when it restarts (a checkpoint's worth and a quarter:
  /// 160 MiB).
  var walFileLimit = 160 << 20
  /// Seconds without a commit after which the writer empties the WAL file.
  var idleTruncateDelay: TimeInterval = 1
  /// How long a write waits for a lock held by another process before failing.
  var busyTimeout: TimeInterval = 5

  static let `default` = Tuning()
}

/// The number of pages in the WAL after the writer's last commit, from SQLite's WAL hook.
final class WalSize: Sendable {
  let pages = Atomic<Int>(0)
}

enum Connection {
  static func configuration(tuning: Tuning, wal: WalSize) -> Configuration {
    var config = Configuration()
    config.label = "cardatlas.store"
    config.busyMode = .timeout(tuning.busyTimeout)
    // Readers serve load() and backup(); two is enough, and each loads SpatiaLite.
    config.maximumReaderCount = 2
    config.prepareDatabase { db in
      try Schema.loadSpatiaLite(db)
      if db.configuration.readonly {
        // Reads are mostly one pass over the file (load, backup): the OS cache serves them.
        return
      }
      // Loading SpatiaLite sets a busy timeout of its own (5 s): ours again.
      sqlite3_busy_timeout(db.sqliteConnection, CInt(tuning.busyTimeout * 1000))
      // page_size only matters for a new file: it must precede the first table.
      try db.execute(sql: "PRAGMA page_size = \(tuning.pageSize)")
      try db.execute(sql: "PRAGMA cache_size = -\(tuning.writerCacheKiB)")
      try db.execute(sql: "PRAGMA temp_store = MEMORY")
      // When the WAL restarts, cut a file grown past the usual cycle (a bulk load can grow it to
      // 512 MiB): frames written over old blocks that the OS no longer caches make each commit
      // read those blocks from disk first (a frame, 24 + 1,024 bytes, covers part of a 4 KiB
      // block). Within the limit the file is reused: its blocks were written one cycle ago.
      try db.execute(sql: "PRAGMA journal_size_limit = \(tuning.walFileLimit)")
      // Registering a WAL hook replaces SQLite's autocheckpoint, which would run inside COMMIT
      // and delay every acknowledgement of that round: the `Checkpointer` thread runs them.
      sqlite3_wal_hook(
        db.sqliteConnection,
        { context, _, _, pages in
          Unmanaged<WalSize>.fromOpaque(context!).takeUnretainedValue()
            .pages.store(Int(pages), ordering: .relaxed)
          return SQLITE_OK
        }, Unmanaged.passUnretained(wal).toOpaque())
    }
    return config
  }

  /// FULL fsyncs the WAL in every COMMIT; NORMAL only in checkpoints. Set once the pool is
  /// open: GRDB's WAL setup, which runs after `prepareDatabase`, sets NORMAL.
  static func setSynchronous(_ fsync: FsyncPolicy, _ pool: DatabasePool) throws {
    try pool.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA synchronous = \(fsync == .always ? "FULL" : "NORMAL")")
    }
  }
}

/// Size of a file in bytes, 0 if it does not exist.
func fileSize(_ path: String) -> Int64 {
  var info = stat()
  return stat(path, &info) == 0 ? Int64(info.st_size) : 0
}

/// fsyncs a file or directory, so that a rename or a new file survives a power loss.
func syncPath(_ path: String, directory: Bool = false) throws {
  let fd = open(path, directory ? O_RDONLY | O_DIRECTORY : O_RDONLY)
  guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  defer { close(fd) }
  guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
