import Keyspace
import Logging
import Store

/// The keyspace in the embedded store: acknowledged from the journal, kept in the tables.
public final class EmbeddedKeyspace: KeyspaceStorage {
  public let store: Store
  public let journal: KeyspaceJournal

  /// Replays what a crash left in the journal into the tables, then loads `keyspace` (empty)
  /// from them.
  public init(store: Store, fsync: FsyncPolicy, keyspace: Keyspace, logger: Logger) throws {
    self.store = store
    journal = try KeyspaceJournal(store: store, fsync: fsync, logger: logger)
    do {
      try keyspace.load { try store.load($0) }
    } catch {
      journal.close()
      throw error
    }
  }

  public var log: any ChangeLog { journal }

  public func persistence() -> [(String, String)] {
    let s = store.statistics
    let commit = s.lastCommitDuration.components
    let commitMicroseconds = commit.seconds * 1_000_000 + commit.attoseconds / 1_000_000_000_000
    return [
      ("cardatlas_store", "sqlite"),
      ("cardatlas_fsync", store.fsync.rawValue),
      ("store_transactions", String(s.transactions)),
      ("store_commands", String(s.commands)),
      ("store_changes", String(s.changes)),
      ("store_failed_transactions", String(s.failedTransactions)),
      ("store_last_error", s.lastError ?? ""),
      ("store_last_commit_usec", String(commitMicroseconds)),
      ("store_last_transaction_commands", String(s.lastTransactionCommands)),
      ("store_pending_commands", String(s.pendingCommands)),
      ("store_database_bytes", String(s.databaseBytes)),
      ("store_wal_bytes", String(s.walBytes)),
      ("journal_unapplied_bytes", String(journal.unappliedBytes)),
      ("store_backup_in_progress", String(s.backupsInProgress)),
      (
        "store_last_backup_time",
        s.lastBackupTime.map { String(Int($0.timeIntervalSince1970)) } ?? "0"
      ),
      ("store_last_backup_status", s.lastBackupTime == nil ? "none" : (s.lastBackupError ?? "ok")),
    ]
  }

  /// One node: nothing to follow.
  public func replication() -> [(String, String)] { [] }

  /// The journal's acknowledged changes first reach the tables, so the copy holds them.
  public func backup(to path: String) throws {
    journal.drain()
    try store.backup(to: path)
  }

  /// The journal's changes reach the tables, then the store (the domain's too) closes.
  public func close() async {
    journal.close()
    store.close()
  }
}
