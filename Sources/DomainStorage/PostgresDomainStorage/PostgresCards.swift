import Accounts
import Cards
import Durability
import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Synchronization

/// The cards in PostgreSQL, in tables named as the embedded store's: `cards` (the fields as
/// `jsonb`, the location a PostGIS point under a GiST index, for GIS tools and SQL users), and
/// `card_reserved_urls`; the codes' key in `id_keys`. The database keeps what two nodes could
/// otherwise both give: slugs per owner, external ids per owner, one primary card per owner,
/// and the plan's limit (`cardatlas_add_cards`). Ids come in blocks (`PostgresIDBlocks`). Each
/// write's `CardChange` rides in the change feed to every node (`consumer(into:)`).
public final class PostgresCards: CardStorage, Sendable {
  public static let migrations = [
    PostgresMigration(
      "cards-v1",
      [
        """
        CREATE TABLE cards (
          id bigint PRIMARY KEY,
          owner_id bigint NOT NULL REFERENCES accounts ON DELETE CASCADE,
          -- A share code drawn at random by an embedded store before its cards-v4 (migrated);
          -- NULL: the id's (IdText, under the 'codes' key of id_keys).
          code text UNIQUE,
          slug text NOT NULL,
          is_primary boolean NOT NULL,
          -- What the owner set: the card model's JSON object.
          fields jsonb NOT NULL,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL,
          -- The id an import gave the card, unique per owner.
          external_id text,
          -- The card's location; NULL while it has none.
          geom geometry(Point, 4326),
          UNIQUE (owner_id, slug))
        """,
        """
        CREATE UNIQUE INDEX cards_by_external_id ON cards (owner_id, external_id)
          WHERE external_id IS NOT NULL
        """,
        "CREATE UNIQUE INDEX cards_one_primary ON cards (owner_id) WHERE is_primary",
        "CREATE INDEX cards_geom ON cards USING gist (geom)",
        """
        CREATE TABLE card_reserved_urls (
          account_id bigint PRIMARY KEY REFERENCES accounts ON DELETE CASCADE)
        """,
        "CREATE SEQUENCE card_id_blocks INCREMENT BY \(blockSize)",
        // A new card's room in its owner's plan, checked where every node's cards are: the
        // owner's row is locked, so that two nodes' new cards for one owner count one after
        // the other.
        """
        CREATE FUNCTION cardatlas_card_room(owner bigint, allowed integer) RETURNS void
        LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM accounts WHERE id = owner FOR UPDATE;
          IF (SELECT count(*) FROM cards WHERE owner_id = owner) >= allowed THEN
            RAISE EXCEPTION 'the owner has % cards already', allowed
              USING ERRCODE = 'CA001';
          END IF;
        END $$
        """,
      ]),
    PostgresMigration(
      "cards-v2",
      [
        // New cards in one call per group commit (`CardInserts`), in place of a savepoint and
        // `cardatlas_card_room` per card.
        "DROP FUNCTION cardatlas_card_room",
        // Each new card checked where every node's cards are: the owners' rows are locked in
        // one order, so that two nodes' new cards for one owner count one after the other,
        // then counted (a statement of its own, which sees what the lock waited for). A card
        // past its plan, or that a unique rule refuses, is not written and is answered, with
        // whether its plan refused it; the rest are.
        """
        CREATE FUNCTION cardatlas_add_cards(
          ids bigint[], owners bigint[], allowed integer[], slugs text[], primaries boolean[],
          fields text[], created timestamptz[], updated timestamptz[], has_external boolean[],
          external text[], longitudes double precision[], latitudes double precision[],
          took_reserved boolean[])
        RETURNS TABLE (refused_id bigint, over_limit boolean)
        LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM accounts a WHERE a.id = ANY (owners) ORDER BY a.id FOR UPDATE;
          RETURN QUERY
          WITH new AS (
            SELECT u.*, row_number() OVER (PARTITION BY u.owner ORDER BY u.id) AS rank
            FROM unnest(ids, owners, allowed, slugs, primaries, fields, created, updated,
              has_external, external, longitudes, latitudes, took_reserved)
              AS u(id, owner, allowed, slug, is_primary, fields, created, updated, has_external,
                external, longitude, latitude, took_reserved)),
          room AS (
            SELECT n.*, n.rank + (SELECT count(*) FROM cards c WHERE c.owner_id = n.owner)
              <= n.allowed AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = n.owner) AS fits
            FROM new n),
          added AS (
            INSERT INTO cards (
              id, owner_id, slug, is_primary, fields, created_at, updated_at, external_id, geom)
            SELECT r.id, r.owner, r.slug, r.is_primary, r.fields::jsonb, r.created, r.updated,
              CASE WHEN r.has_external THEN r.external END,
              CASE WHEN r.longitude <> 'NaN'
                THEN ST_SetSRID(ST_MakePoint(r.longitude, r.latitude), 4326) END
            FROM room r WHERE r.fits
            ON CONFLICT DO NOTHING
            RETURNING cards.id, cards.owner_id),
          reserved AS (
            DELETE FROM card_reserved_urls u
            WHERE u.account_id IN (
              SELECT a.owner_id FROM added a JOIN room r ON r.id = a.id WHERE r.took_reserved))
          SELECT r.id, NOT r.fits FROM room r WHERE r.id NOT IN (SELECT a.id FROM added a);
        END $$
        """,
      ]),
  ]

  static let blockSize: Int64 = 1_000
  /// The feed section's source for card changes.
  public static let source: UInt8 = 3

  let store: PostgresStore
  public let cardIDs: (any IDBlocks)?
  private let rows: Mutex<[LoadedCard]?>
  private let stored: StoredCards
  private let position: FeedPosition
  private let logger: Logger

  /// Reads every card in one snapshot (and the codes' key, made by the first node to ask), and
  /// takes this node's first block of ids.
  public init(store: PostgresStore, logger: Logger) async throws {
    self.store = store
    self.logger = logger
    try await PostgresIdKeys.ensure("codes", in: store, logger: logger)
    let (rows, stored, position) = try await store.snapshot { connection, position in
      let (rows, stored) = try await Self.read(on: connection, logger: logger)
      return (rows, stored, position)
    }
    self.rows = Mutex(rows)
    self.stored = stored
    self.position = position
    cardIDs = try await PostgresIDBlocks(
      sequence: "card_id_blocks", blockSize: Self.blockSize, connector: store.connector,
      logger: logger)
  }

  /// Hands on the cards read at start, once: they are let go as they are.
  public func load(_ chunk: ([(card: Card, externalId: String?)]) throws -> Void) throws
    -> StoredCards
  {
    let rows = self.rows.withLock { rows in
      defer { rows = nil }
      return rows ?? []
    }
    for start in stride(from: 0, to: rows.count, by: LoadedCard.chunkSize) {
      let part = rows[start..<min(start + LoadedCard.chunkSize, rows.count)]
      try chunk(try LoadedCard.parse(Array(part), codes: stored.codes))
    }
    return stored
  }

  /// Applies every committed card change to `cards` (loaded from this storage), from where the
  /// load read: this node's own too, which memory has already (`Cards.apply(followed:own:)`).
  public func consumer(into cards: Cards) -> FeedConsumer {
    .changes(
      CardChange.self, source: Self.source, after: position, store: store, logger: logger
    ) { change, own in cards.apply(followed: change, own: own) }
  }

  public func commit(
    _ writes: [any DurableWrite],
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    store.commit(writes) { completion($0.mapError(Self.refusal)) }
  }

  /// A write's own failure in the domain's terms: a card change that a unique rule refused
  /// (another node's write took the primary flag) is `CardRaced`, as a refused new card is.
  static func refusal(_ error: any Error) -> any Error {
    guard let info = (error as? PSQLError)?.serverInfo else { return error }
    switch info[.sqlState] {
    case "23505": return CardRaced(overLimit: false)
    default: return PostgresRefusal(description: info[.message] ?? String(reflecting: error))
    }
  }

  public func inserting(
    _ card: Card, externalId: String?, takingReservedURL: Bool, plan: CardPlan
  ) -> any DurableWrite {
    CardInserts(card, externalId: externalId, tookReservedURL: takingReservedURL, plan: plan)
  }

  public func saving(_ card: Card) -> any DurableWrite {
    CardWrite(.saved(StoredCard(card), externalId: nil, tookReservedURL: false), card: card)
  }

  public func settingPrimary(_ cards: [Card], of owner: Int64) -> any DurableWrite {
    CardWrite(.primary(cards.map(StoredCard.init), owner: owner))
  }

  public func deleting(_ card: Card) -> any DurableWrite { CardWrite(.deleted(StoredCard(card))) }

  public func deletingAll(of owner: Int64) -> any DurableWrite {
    CardWrite(.deletedAll(owner: owner))
  }

  static func read(on connection: PostgresConnection, logger: Logger) async throws
    -> ([LoadedCard], StoredCards)
  {
    guard
      let key = try await connection.query(
        "SELECT key FROM id_keys WHERE purpose = 'codes'", logger: logger
      ).collect().first?.decode(ByteBuffer.self)
    else { throw PostgresAccountsError(description: "id_keys has no key for codes") }
    var rows: [LoadedCard] = []
    for try await row in try await connection.query(
      """
      SELECT id, owner_id, code, slug, is_primary, fields::text, created_at, updated_at,
        external_id
      FROM cards
      """, logger: logger)
    {
      // A cell at a time: decoding a row as a tuple instantiated generic metadata for each row,
      // a sixth of a 1M-card start, where the cells' decoding specializes here.
      var cells = row.makeIterator()
      func next<T: PostgresDecodable>(_: T.Type) throws -> T { try cells.next()!.decode(T.self) }
      rows.append(
        LoadedCard(
          id: try next(Int64.self), ownerId: try next(Int64.self), code: try next(String?.self),
          slug: try next(String.self), isPrimary: try next(Bool.self),
          fields: try next(String.self), createdAt: try next(Date.self),
          updatedAt: try next(Date.self), externalId: try next(String?.self)))
    }
    var reserved: Set<Int64> = []
    for try await account in try await connection.query(
      "SELECT account_id FROM card_reserved_urls", logger: logger
    ).decode(Int64.self) {
      reserved.insert(account)
    }
    // Ids come from blocks (`cardIDs`): this only counts on past what is loaded.
    let next = (rows.map(\.id).max() ?? 0) + 1
    return (
      rows,
      StoredCards(codes: Cards.codes(key: Data(buffer: key)), reserved: reserved, nextId: next)
    )
  }
}
