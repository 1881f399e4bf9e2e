import Foundation
import GRDB

/// When a group-commit transaction reaches the disk, relative to its acknowledgements.
public enum FsyncPolicy: String, Sendable, CaseIterable {
  /// The WAL is fsynced before any completion of the transaction runs: an acknowledged write
  /// survives a power loss.
  case always
  /// SQLite's synchronous=NORMAL in WAL mode: an acknowledged write survives a crash or kill -9
  /// of the process (it is in the OS page cache), but the last transactions before a power loss
  /// or kernel panic may be lost. The file is never corrupted either way.
  case batch
}

/// Why the store refused or failed a write, in words an operator can act on.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `close()` was called: the store takes no more writes.
  case closed
  /// mod_spatialite could not be loaded (not installed?).
  case spatiaLiteUnavailable(String)
  /// SQLITE_FULL: the disk (or a quota) is full.
  case diskFull(path: String, message: String)
  /// SQLITE_READONLY / SQLITE_CANTOPEN / SQLITE_PERM: the file or its directory cannot be written.
  case readOnly(path: String, message: String)
  /// SQLITE_BUSY / SQLITE_LOCKED: another process holds a lock on the database for too long.
  case locked(path: String, message: String)
  /// SQLITE_IOERR and friends: the operating system failed a read, write or fsync.
  case io(path: String, message: String)
  /// Anything else SQLite reported.
  case sqlite(code: Int32, message: String)
  /// The directory holding the database could not be created.
  case cannotCreateDirectory(path: String, message: String)

  public var description: String {
    switch self {
    case .closed: "store is closed"
    case .spatiaLiteUnavailable(let m):
      "cannot load SpatiaLite (mod_spatialite; install libsqlite3-mod-spatialite): \(m)"
    case .diskFull(let p, let m): "disk full writing \(p): \(m)"
    case .readOnly(let p, let m):
      "cannot write \(p) (read-only file, directory or filesystem): \(m)"
    case .locked(let p, let m): "\(p) is locked by another process: \(m)"
    case .io(let p, let m): "I/O error on \(p): \(m)"
    case .sqlite(let c, let m): "SQLite error \(c): \(m)"
    case .cannotCreateDirectory(let p, let m): "cannot create directory \(p): \(m)"
    }
  }

  /// Classifies any error thrown by GRDB/SQLite for the database at `path`.
  static func wrap(_ error: any Error, path: String) -> StoreError {
    if let error = error as? StoreError { return error }
    if let error = error as? POSIXError {
      let message = "\(error)"
      switch error.code {
      case .ENOSPC, .EDQUOT: return .diskFull(path: path, message: message)
      case .EROFS, .EACCES, .EPERM: return .readOnly(path: path, message: message)
      default: return .io(path: path, message: message)
      }
    }
    guard let error = error as? DatabaseError else {
      return .sqlite(code: -1, message: "\(error)")
    }
    let message = error.message ?? "\(error)"
    switch error.resultCode {
    case .SQLITE_FULL: return .diskFull(path: path, message: message)
    case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
      return .readOnly(path: path, message: message)
    case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path, message: message)
    // SQLite's unix VFS already reports ENOSPC as SQLITE_FULL.
    // The extended code says which operation failed (a read, an fsync, a lock, the WAL index).
    case .SQLITE_IOERR:
      let code = error.extendedResultCode.rawValue
      return .io(path: path, message: "\(message) (extended code \(code))")
    default: return .sqlite(code: error.resultCode.rawValue, message: message)
    }
  }
}

/// What `INFO persistence` reports. A snapshot: counters since the store was opened.
public struct StoreStatistics: Sendable, Equatable {
  /// Group-commit transactions committed (each holds one or more `commit` calls).
  public var transactions = 0
  /// `commit` calls made durable.
  public var commands = 0
  /// Changes made durable.
  public var changes = 0
  /// Transactions that failed (every command in them got the error).
  public var failedTransactions = 0
  /// Commands refused within a transaction that went through (a domain write's own error).
  public var refusedCommands = 0
  /// The last error a transaction failed with, if any.
  public var lastError: String?
  /// Wall time of the last transaction, from BEGIN to the end of COMMIT (and its fsync).
  public var lastCommitDuration: Duration = .zero
  /// Commands in the last transaction.
  public var lastTransactionCommands = 0
  /// Commands and changes queued, not yet in a transaction.
  public var pendingCommands = 0
  public var pendingChanges = 0
  /// Bytes of the database file and of its write-ahead log.
  public var databaseBytes: Int64 = 0
  public var walBytes: Int64 = 0
  /// When the last `backup(to:)` finished, whether it succeeded, and how long it took.
  public var lastBackupTime: Date?
  public var lastBackupError: String?
  public var lastBackupDuration: Duration = .zero
  /// Backups started and not finished.
  public var backupsInProgress = 0

  public init() {}
}
