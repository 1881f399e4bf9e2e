import Durability
import Logging
import NIOCore
import PostgresNIO

/// One module's part of a commit's row in the change feed: what other nodes need to apply the
/// commit's writes to what they hold. `source` says which module reads `bytes`.
public struct FeedSection: Sendable, Equatable {
  public let source: UInt8
  public let bytes: [UInt8]

  public init(source: UInt8, bytes: [UInt8]) {
    self.source = source
    self.bytes = bytes
  }
}

/// A committed row of the change feed, as a follower reads it.
public struct FeedEntry: Sendable {
  /// Its id: the order every node applies it in (commits that depend on each other in commit
  /// order).
  public let position: Int64
  /// The node that committed it (`PostgresStore.node`), and its batch there.
  public let node: String
  let batch: Int64
  public let sections: [FeedSection]
}

/// Where a snapshot stands in the feed (`PostgresStore.snapshot`): it holds every row up to
/// `id`, and the committed rows not yet given one (`pending`), whose ids will come after it.
public struct FeedPosition: Sendable {
  public let id: Int64
  let pending: Set<Pending>

  struct Pending: Hashable, Sendable {
    let node: String
    let batch: Int64
  }

  /// Whether `entry` is not yet in what the snapshot read.
  public func precedes(_ entry: FeedEntry) -> Bool {
    entry.position > id && !pending.contains(Pending(node: entry.node, batch: entry.batch))
  }
}

/// A module that applies the feed's rows to what it loaded: those after `position`, where its
/// load's snapshot read (`PostgresStore.snapshot`). A node's modules share one follower.
public struct FeedConsumer: Sendable {
  public let position: FeedPosition
  public let apply: @Sendable (FeedEntry) -> Void

  public init(position: FeedPosition, apply: @escaping @Sendable (FeedEntry) -> Void) {
    self.position = position
    self.apply = apply
  }
}

/// A write into PostgreSQL, brought to the store's group commit.
public protocol PostgresWrite: DurableWrite {
  /// Writes into the open transaction's tables.
  func apply(on connection: PostgresConnection, logger: Logger) async throws
  /// What the other nodes need to apply it: it goes in the commit's feed row.
  var feed: [FeedSection] { get }
  /// Takes `next` (the next command's write) into this one, when they can be one: the group
  /// commit then sends one statement for many commands' rows. False (the default): apart. In
  /// place, so that a batch of a thousand commands is merged in linear time.
  mutating func absorb(_ next: any PostgresWrite) -> Bool
  /// Whether the database may refuse the write, or some of what it absorbed, without anything
  /// of theirs written and without failing the transaction (a new card another node left no
  /// room for): then its command fails alone, with no savepoint. Such a write must be its
  /// command's only one. False by default.
  var mayBeRefused: Bool { get }
  /// Applies the write and what it absorbed: what the database refused, by place (0: this
  /// write, k: the k-th it absorbed), and the feed of the rest. By default `apply`, nothing
  /// refused, and `feed`.
  func applyRefusing(on connection: PostgresConnection, logger: Logger) async throws
    -> AppliedWrite
}

/// What a write did in its transaction (`PostgresWrite.applyRefusing`).
public struct AppliedWrite: Sendable {
  /// Refused parts by place, with why.
  public let refused: [Int: any Error]
  public let feed: [FeedSection]

  public init(refused: [Int: any Error] = [:], feed: [FeedSection]) {
    self.refused = refused
    self.feed = feed
  }
}

extension PostgresWrite {
  public mutating func absorb(_ next: any PostgresWrite) -> Bool { false }
  public var mayBeRefused: Bool { false }

  public func applyRefusing(on connection: PostgresConnection, logger: Logger) async throws
    -> AppliedWrite
  {
    try await apply(on: connection, logger: logger)
    return AppliedWrite(feed: feed)
  }
}

/// The change feed: `cardatlas_changes`, one row per commit that changed something. A commit
/// writes its row without an id, ordered after every commit it waited for (`ordinal`, taken
/// last); once committed, `sequence` gives it its id from `cardatlas_change_ids`, under one
/// advisory lock held only inside that statement. So ids are in commit order wherever two
/// commits touch the same thing, a reader who sees an id has seen every smaller one that will
/// ever be, and no lock waits on a client between two statements: a node paused in the middle of
/// a commit stalls only the writes that need what it holds (docs/STORE.md, "Many nodes").
enum ChangeFeed {
  static let migrations = [
    PostgresMigration(
      "feed-v1",
      [
        "CREATE SEQUENCE cardatlas_change_ids",
        """
        CREATE TABLE cardatlas_changes (
          id bigint PRIMARY KEY,
          node text NOT NULL,
          batch bigint NOT NULL,
          payload bytea NOT NULL,
          committed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
          UNIQUE (node, batch))
        """,
      ]),
    PostgresMigration(
      "feed-v2-sequenced-after-commit",
      [
        "ALTER TABLE cardatlas_changes DROP CONSTRAINT cardatlas_changes_pkey",
        "ALTER TABLE cardatlas_changes ALTER COLUMN id DROP NOT NULL, ADD COLUMN ordinal bigint",
        "CREATE UNIQUE INDEX cardatlas_changes_id ON cardatlas_changes (id)",
        "CREATE SEQUENCE cardatlas_change_order",
        """
        CREATE INDEX cardatlas_changes_unsequenced ON cardatlas_changes (ordinal)
        WHERE id IS NULL
        """,
        // A function so that each statement reads after the lock is taken (a statement's own
        // snapshot would be older), and the lock is released by the statement's end.
        """
        CREATE FUNCTION cardatlas_sequence_changes() RETURNS integer
        LANGUAGE plpgsql AS $$
        DECLARE
          next_ordinal bigint;
          given integer := 0;
        BEGIN
          PERFORM pg_advisory_xact_lock(74085810044930);
          FOR next_ordinal IN
            SELECT ordinal FROM cardatlas_changes WHERE id IS NULL ORDER BY ordinal
          LOOP
            UPDATE cardatlas_changes SET id = nextval('cardatlas_change_ids')
            WHERE ordinal = next_ordinal AND id IS NULL;
            given := given + 1;
          END LOOP;
          IF given > 0 THEN
            PERFORM pg_notify('cardatlas_changes', '');
          END IF;
          RETURN given;
        END
        $$
        """,
      ]),
  ]

  /// The notification channel `sequence` wakes the followers on.
  static let channel = "cardatlas_changes"

  /// `[source: UInt8][length: UInt32 LE][bytes]` per section.
  static func payload(_ sections: [FeedSection]) -> ByteBuffer {
    var buffer = ByteBuffer()
    for section in sections {
      buffer.writeInteger(section.source)
      buffer.writeInteger(UInt32(section.bytes.count), endianness: .little)
      buffer.writeBytes(section.bytes)
    }
    return buffer
  }

  static func sections(_ payload: ByteBuffer) -> [FeedSection]? {
    var buffer = payload
    var sections: [FeedSection] = []
    while buffer.readableBytes > 0 {
      guard let source = buffer.readInteger(as: UInt8.self),
        let length = buffer.readInteger(endianness: .little, as: UInt32.self),
        let bytes = buffer.readBytes(length: Int(length))
      else { return nil }
      sections.append(FeedSection(source: source, bytes: bytes))
    }
    return sections
  }

  /// Appends the commit's row, in the open transaction, after its other writes: its ordinal then
  /// comes after that of every commit whose locks or rows it waited for.
  static func append(
    _ sections: [FeedSection], node: String, batch: Int64, on connection: PostgresConnection,
    logger: Logger
  ) async throws {
    try await connection.query(
      """
      INSERT INTO cardatlas_changes (ordinal, node, batch, payload)
      VALUES (nextval('cardatlas_change_order'), \(node), \(batch), \(payload(sections)))
      """, logger: logger)
  }

  /// Gives the committed rows waiting for an id theirs, in ordinal order, and wakes the
  /// followers; one statement outside any transaction. Returns how many it gave.
  @discardableResult
  static func sequence(on connection: PostgresConnection, logger: Logger) async throws -> Int {
    let given = try await connection.query(
      "SELECT cardatlas_sequence_changes()", logger: logger
    ).collect().first?.decode(Int32.self)
    return Int(given ?? 0)
  }

  /// Whether committed rows have waited for an id longer than `age` (their writer stopped
  /// between its COMMIT and `sequence`).
  static func unsequenced(
    olderThan age: Duration, on connection: PostgresConnection, logger: Logger
  ) async throws -> Bool {
    try await connection.query(
      """
      SELECT EXISTS (SELECT 1 FROM cardatlas_changes WHERE id IS NULL
        AND committed_at < clock_timestamp() - make_interval(secs => \(FeedRetention.seconds(age))))
      """, logger: logger
    ).collect().first?.decode(Bool.self) ?? false
  }

  /// Where the open transaction's snapshot stands in the feed.
  static func position(on connection: PostgresConnection, logger: Logger) async throws
    -> FeedPosition
  {
    let id =
      try await connection.query(
        "SELECT coalesce(max(id), 0)::bigint FROM cardatlas_changes", logger: logger
      ).collect().first?.decode(Int64.self) ?? 0
    var pending: Set<FeedPosition.Pending> = []
    let rows = try await connection.query(
      "SELECT node, batch FROM cardatlas_changes WHERE id IS NULL", logger: logger)
    for try await (node, batch) in rows.decode((String, Int64).self) {
      pending.insert(FeedPosition.Pending(node: node, batch: batch))
    }
    return FeedPosition(id: id, pending: pending)
  }

  /// Whether a commit whose answer was lost (the connection dropped during COMMIT) committed:
  /// a row of the same node and batch, tried and rolled back, waits for a commit in progress
  /// (the unique index) and then conflicts with it only if it committed.
  static func committed(
    node: String, batch: Int64, on connection: PostgresConnection, logger: Logger
  ) async throws -> Bool {
    try await connection.query("BEGIN", logger: logger)
    let inserted = try await connection.query(
      """
      INSERT INTO cardatlas_changes (node, batch, payload) VALUES (\(node), \(batch), '')
      ON CONFLICT (node, batch) DO NOTHING RETURNING batch
      """, logger: logger
    ).collect()
    try await connection.query("ROLLBACK", logger: logger)
    return inserted.isEmpty
  }

  /// Up to `limit` rows after `position`, in order.
  static func read(
    after position: Int64, limit: Int, on connection: PostgresConnection, logger: Logger
  ) async throws -> [FeedEntry] {
    var entries: [FeedEntry] = []
    let rows = try await connection.query(
      """
      SELECT id, node, batch, payload FROM cardatlas_changes WHERE id > \(position)
      ORDER BY id LIMIT \(limit)
      """, logger: logger)
    for try await (id, node, batch, payload) in rows.decode(
      (Int64, String, Int64, ByteBuffer).self)
    {
      guard let sections = sections(payload) else {
        throw FeedError(description: "change \(id) does not read as a feed row")
      }
      entries.append(FeedEntry(position: id, node: node, batch: batch, sections: sections))
    }
    return entries
  }
}

struct FeedError: Error, CustomStringConvertible {
  let description: String
}
