import Durability
import Foundation
import Logging
import People
import PostgresNIO
import PostgresStore
import Synchronization

/// The exchanges of cards in PostgreSQL, in tables named as the embedded store's:
/// `exchange_requests` and `exchanges` (where the pair met as a PostGIS point under a GiST
/// index). The database keeps one exchange per pair, so two nodes completing the same pair at
/// once leave one (`ExchangeRaced` for the other). Ids come in blocks (`PostgresIDBlocks`).
/// Each write's `ExchangeChange` rides in the change feed to every node (`consumer(into:)`).
/// Presences are never stored: they travel as `PeopleNews` (`PostgresNode`).
public final class PostgresExchanges: ExchangeStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "people-v1",
      [
        """
        CREATE TABLE exchange_requests (
          from_account bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          to_account bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          -- Seconds since 1970, as the nodes hold it.
          requested_at double precision NOT NULL,
          PRIMARY KEY (from_account, to_account))
        """,
        "CREATE INDEX exchange_requests_to ON exchange_requests (to_account)",
        // One row per pair that exchanged, account_a < account_b; card_a is the card a gave.
        // Where: the midpoint of their cells, to 3 decimals (about 100 m), and its place name.
        """
        CREATE TABLE exchanges (
          id bigint PRIMARY KEY,
          account_a bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          account_b bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          card_a bigint NOT NULL,
          card_b bigint NOT NULL,
          exchanged_at timestamptz NOT NULL,
          place text,
          geom geometry(Point, 4326),
          UNIQUE (account_a, account_b),
          CHECK (account_a < account_b))
        """,
        "CREATE INDEX exchanges_b ON exchanges (account_b)",
        "CREATE INDEX exchanges_geom ON exchanges USING gist (geom)",
        "CREATE SEQUENCE exchange_id_blocks INCREMENT BY \(blockSize)",
      ])
  ]

  static let blockSize: Int64 = 1_000
  /// The feed section's source for exchange changes.
  static let source: UInt8 = 6

  let store: PostgresStore
  public let exchangeIDs: (any IDBlocks)?
  private let loaded: LoadedOnce<(requests: [StoredExchangeRequest], pairs: [(Int64, Int64)])>
  private let position: FeedPosition
  private let logger: Logger
  private let storedDistanceKey: Data

  /// Reads the requests and the pairs in one snapshot, and takes this node's first block of
  /// ids.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    try await PostgresIdKeys.ensure("distances", in: store, logger: logger)
    let (requests, pairs, key, position) = try await store.snapshot { connection, position in
      var requests: [StoredExchangeRequest] = []
      for try await (from, to, at) in try await connection.query(
        "SELECT from_account, to_account, requested_at FROM exchange_requests", logger: logger
      ).decode((Int64, Int64, Double).self) {
        requests.append(StoredExchangeRequest(from: from, to: to, requestedAt: at))
      }
      var pairs: [(Int64, Int64)] = []
      for try await pair in try await connection.query(
        "SELECT account_a, account_b FROM exchanges", logger: logger
      ).decode((Int64, Int64).self) {
        pairs.append(pair)
      }
      var key: ByteBuffer?
      for try await found in try await connection.query(
        "SELECT key FROM id_keys WHERE purpose = 'distances'", logger: logger
      ).decode(ByteBuffer.self) {
        key = found
      }
      guard let key else {
        throw PostgresAccountsError(description: "id_keys has no key for distances")
      }
      return (requests, pairs, Data(buffer: key), position)
    }
    loaded = LoadedOnce((requests, pairs))
    storedDistanceKey = key
    self.position = position
    exchangeIDs = try await PostgresIDBlocks(
      sequence: "exchange_id_blocks", blockSize: Self.blockSize, connector: store.connector,
      logger: logger)
  }

  public func distanceKey() throws -> Data { storedDistanceKey }

  /// Hands on what was read at start, once. The next id is the blocks'.
  public func load() throws -> (
    requests: [StoredExchangeRequest], pairs: [(Int64, Int64)], nextId: Int64
  ) {
    let read = loaded.take()
    return (read?.requests ?? [], read?.pairs ?? [], 1)
  }

  /// Applies every committed exchange change to `people`, this node's own included (each
  /// carries what its transaction wrote: `People.apply(followed:own:)`), from where the load
  /// read.
  public func consumer(into people: People) -> FeedConsumer {
    .changes(
      ExchangeChange.self, source: Self.source, after: position, store: store, logger: logger
    ) { change, own in
      people.apply(followed: change, own: own)
    }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(writes, refusing: "23505", as: { ExchangeRaced() }, completion: completion)
  }

  public func exchanges(
    of account: Int64, limit: Int,
    _ done: @escaping @Sendable (Result<[Exchange], any Error>) -> Void
  ) {
    let (connector, logger) = (store.connector, logger)
    Task(executorPreference: connector.executor) {
      do {
        let connection = try await connector.primary()
        defer { connection.discard() }
        var found: [Exchange] = []
        for try await (id, a, b, cardA, cardB, at, longitude, latitude, place)
          in try await connection.query(
            """
            SELECT id, account_a, account_b, card_a, card_b, exchanged_at, ST_X(geom), ST_Y(geom),
              place
            FROM exchanges WHERE account_a = \(account) OR account_b = \(account)
            ORDER BY exchanged_at DESC, id DESC LIMIT \(limit)
            """, logger: logger
          ).decode((Int64, Int64, Int64, Int64, Int64, Date, Double?, Double?, String?).self)
        {
          found.append(
            Exchange(
              id: id, accountA: a, accountB: b, cardA: cardA, cardB: cardB, date: at,
              longitude: longitude, latitude: latitude, place: place))
        }
        done(.success(found))
      } catch {
        done(.failure(error))
      }
    }
  }

  public func inserting(_ e: Exchange) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        """
        INSERT INTO exchanges (id, account_a, account_b, card_a, card_b, exchanged_at, place, geom)
        VALUES (\(e.id), \(e.accountA), \(e.accountB), \(e.cardA), \(e.cardB), \(e.date),
          \(e.place), ST_SetSRID(ST_MakePoint(\(e.longitude), \(e.latitude)), 4326))
        """, logger: logger)
      return ExchangeChange.exchanged(e.accountA, e.accountB)
    }
  }

  public func syncingRequest(
    from: Int64, to: Int64, new: Bool, current: @escaping @Sendable () -> Double?
  ) -> any DurableWrite {
    RequestWrite(from: from, to: to, new: new, current: current)
  }

  public func deletingAll(of account: Int64) -> any DurableWrite {
    SyncedWrite(source: Self.source) { connection, logger in
      try await connection.query(
        """
        DELETE FROM exchange_requests WHERE from_account = \(account) OR to_account = \(account)
        """, logger: logger)
      try await connection.query(
        "DELETE FROM exchanges WHERE account_a = \(account) OR account_b = \(account)",
        logger: logger)
      return ExchangeChange.deletedAll(account: account)
    }
  }
}

/// A request's write: the state memory holds as it applies. A new request is refused, with
/// nothing written, when the pair exchanged on another node whose feed row this node has not
/// read yet. (Two transactions in flight at once can still leave such a request beside the
/// exchange: every node then ignores it, `People.pending`.)
final class RequestWrite: PostgresWrite {
  let from: Int64
  let to: Int64
  let new: Bool
  let current: @Sendable () -> Double?
  private let change = Mutex<ExchangeChange?>(nil)

  init(from: Int64, to: Int64, new: Bool, current: @escaping @Sendable () -> Double?) {
    (self.from, self.to, self.new, self.current) = (from, to, new, current)
  }

  var mayBeRefused: Bool { new }

  var feed: [FeedSection] {
    guard let made = change.withLock({ $0 }), let bytes = try? JSONEncoder().encode(made) else {
      return []
    }
    return [FeedSection(source: PostgresExchanges.source, bytes: Array(bytes))]
  }

  func applyRefusing(on connection: PostgresConnection, logger: Logger) async throws
    -> AppliedWrite
  {
    let at = current()
    if let at {
      let (a, b) = (min(from, to), max(from, to))
      let written = try await connection.query(
        """
        INSERT INTO exchange_requests (from_account, to_account, requested_at)
        SELECT \(from), \(to), \(at)
        WHERE NOT \(new) OR NOT EXISTS (
          SELECT 1 FROM exchanges WHERE account_a = \(a) AND account_b = \(b))
        ON CONFLICT (from_account, to_account) DO UPDATE SET requested_at = excluded.requested_at
        RETURNING 1
        """, logger: logger
      ).collect()
      if written.isEmpty { return AppliedWrite(refused: [0: ExchangeRaced()], feed: []) }
    } else {
      try await connection.query(
        "DELETE FROM exchange_requests WHERE from_account = \(from) AND to_account = \(to)",
        logger: logger)
    }
    change.withLock { $0 = .request(from: from, to: to, at: at) }
    return AppliedWrite(feed: feed)
  }

  func apply(on connection: PostgresConnection, logger: Logger) async throws {
    if let refused = try await applyRefusing(on: connection, logger: logger).refused[0] {
      throw refused
    }
  }
}
