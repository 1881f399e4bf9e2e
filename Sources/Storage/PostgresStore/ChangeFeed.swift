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
  /// Its id: commit order across every node.
  public let position: Int64
  /// The node that committed it (`PostgresStore.node`).
  public let node: String
  public let sections: [FeedSection]
}

/// A module that applies the feed's rows to what it loaded: those after `position`, where its
/// load's snapshot read (`PostgresStore.snapshot`). A node's modules share one follower.
public struct FeedConsumer: Sendable {
  public let position: Int64
  public let apply: @Sendable (FeedEntry) -> Void

  public init(position: Int64, apply: @escaping @Sendable (FeedEntry) -> Void) {
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

/// The change feed: `cardatlas_changes`, one row per commit that changed something, its id from
/// `cardatlas_change_ids`. A commit takes its id while holding one advisory lock until it ends,
/// so ids are in commit order, and a reader who sees an id has seen every smaller one that will
/// ever commit (docs/STORE.md, "Many nodes").
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
      ])
  ]

  /// The notification channel a commit wakes the followers on.
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

  /// Appends the commit's row, in the open transaction, after the lock that orders the ids.
  static func append(
    _ sections: [FeedSection], node: String, batch: Int64, on connection: PostgresConnection,
    logger: Logger
  ) async throws {
    try await connection.run(
      "SELECT pg_advisory_xact_lock(\(PostgresLocks.feed))", logger: logger)
    try await connection.query(
      """
      INSERT INTO cardatlas_changes (id, node, batch, payload)
      VALUES (nextval('cardatlas_change_ids'), \(node), \(batch), \(payload(sections)))
      """, logger: logger)
    try await connection.run("SELECT pg_notify(\(channel), '')", logger: logger)
  }

  /// Whether a commit whose answer was lost (the connection dropped during COMMIT) committed.
  /// Taking the feed's lock first waits out a commit still in progress.
  static func committed(
    node: String, batch: Int64, on connection: PostgresConnection, logger: Logger
  ) async throws -> Bool {
    try await connection.withTransaction(logger: logger) { connection in
      try await connection.run(
        "SELECT pg_advisory_xact_lock(\(PostgresLocks.feed))", logger: logger)
      return try await !connection.query(
        "SELECT id FROM cardatlas_changes WHERE node = \(node) AND batch = \(batch)",
        logger: logger
      ).collect().isEmpty
    }
  }

  /// Up to `limit` rows after `position`, in order.
  static func read(
    after position: Int64, limit: Int, on connection: PostgresConnection, logger: Logger
  ) async throws -> [FeedEntry] {
    var entries: [FeedEntry] = []
    let rows = try await connection.query(
      """
      SELECT id, node, payload FROM cardatlas_changes WHERE id > \(position)
      ORDER BY id LIMIT \(limit)
      """, logger: logger)
    for try await (id, node, payload) in rows.decode((Int64, String, ByteBuffer).self) {
      guard let sections = sections(payload) else {
        throw FeedError(description: "change \(id) does not read as a feed row")
      }
      entries.append(FeedEntry(position: id, node: node, sections: sections))
    }
    return entries
  }
}

struct FeedError: Error, CustomStringConvertible {
  let description: String
}
