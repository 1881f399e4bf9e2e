import Accounts
import DomainSupport
import Durability
import Foundation

/// What the cards need from a store: every card read back at start, and the writes that keep
/// them, made durable in the group commit with the rest of their command (`commit`; the
/// wallets, views and notices commit through it too). The embedded store's is
/// `SQLiteDomainStorage.SQLiteCards`.
public protocol CardStorage: WriteCommitter {
  /// Hands `chunk` every card with the external id an import gave it, some thousands at a time
  /// as read (never every card parsed at once), parsed on every core (`LoadedCard.parse`);
  /// returns what else the cards hold.
  func load(_ chunk: ([(card: Card, externalId: String?)]) throws -> Void) throws -> StoredCards
  /// A new card, taking its owner's reserved URL if `takingReservedURL`. A store many nodes
  /// share refuses it (`CardRaced`) if the owner's cards stored by then leave no room in
  /// `plan`, or already have a primary card where this one is primary.
  func inserting(_ card: Card, externalId: String?, takingReservedURL: Bool, plan: CardPlan)
    -> any DurableWrite
  /// The card's fields, primary flag, time of change and point.
  func saving(_ card: Card) -> any DurableWrite
  /// The owner's cards whose primary flag changed; the owner's reserved URL is taken.
  func settingPrimary(_ cards: [Card], of owner: Int64) -> any DurableWrite
  /// A primary card's URL is reserved for its owner's next card.
  func deleting(_ card: Card) -> any DurableWrite
  /// The account's cards and its reserved URL, when the account goes.
  func deletingAll(of owner: Int64) -> any DurableWrite
  /// Where new cards' ids come from when nodes share the store; nil: after the highest stored.
  var cardIDs: (any IDBlocks)? { get }
  /// What `keepHeld` kept at the last clean stop, if nothing has written to the store since,
  /// with the share codes' key; taken once. Nil: `load` the rows.
  func takeHeld() throws -> (held: Data, codes: IdText)?
  /// Keeps `make()`'s bytes (the cards as held) for the next start. Called as the store closes,
  /// once nothing else writes (`Cards.keepHeld`).
  func keepHeld(_ make: () -> [UInt8]?) throws
}

extension CardStorage {
  public var cardIDs: (any IDBlocks)? { nil }
  /// A store many nodes share keeps nothing: another node may write before this one starts.
  public func takeHeld() throws -> (held: Data, codes: IdText)? { nil }
  public func keepHeld(_ make: () -> [UInt8]?) throws {}
}

/// What the cards' store holds besides the cards.
public struct StoredCards: Sendable {
  /// The share codes of cards made since cards-v4 (`Cards.codes(key:)`).
  public var codes: IdText
  /// Accounts whose primary card was deleted: its URL shows a placeholder.
  public var reserved: Set<Int64>
  /// The id after the highest ever given (a deleted card's is never given again).
  public var nextId: Int64

  public init(codes: IdText, reserved: Set<Int64>, nextId: Int64) {
    self.codes = codes
    self.reserved = reserved
    self.nextId = nextId
  }
}

/// What the wallets need from a store. The embedded store's is `SQLiteWallets`.
public protocol WalletStorage: Sendable {
  /// Every entry: who holds which card since when (microseconds since 1970).
  func load() throws -> [(holder: Int64, card: Int64, addedMicros: Int64)]
  /// Makes the stored entry what `current` answers as the write applies (nil: none), so that
  /// writes racing for one entry leave the latest whatever order they commit in.
  func syncing(holder: Int64, card: Int64, current: @escaping @Sendable () -> Int64?)
    -> any DurableWrite
  func deletingWallet(of holder: Int64) -> any DurableWrite
}

/// What counting views needs from a store. The embedded store's is `SQLiteCardViews`.
public protocol CardViewStorage: Sendable {
  /// A signed-in viewer's view of the card on the day, unless already stored; `then` hears,
  /// once it is durable, whether it was new.
  func recording(
    card: Int64, viewer: Int64, day: Int, then: @escaping @Sendable (_ new: Bool) -> Void
  ) -> any DurableWrite
  /// An anonymous visitor's view, by the hash of its client.
  func recording(
    card: Int64, visitor: Data, day: Int, then: @escaping @Sendable (_ new: Bool) -> Void
  ) -> any DurableWrite
  /// The card's views per day from `from` to `to`, days without views left out, in order; to
  /// `done`, which a store over the network calls once it has them.
  func views(
    of card: Int64, from: Int, to: Int,
    _ done: @escaping @Sendable (Result<[(day: Int, views: Int)], any Error>) -> Void)
  func deletingViews(of card: Int64) -> any DurableWrite
  func deletingViews(by viewer: Int64) -> any DurableWrite
}

/// Every counted view a store holds, as `cardatlas migrate` moves them to another.
public struct StoredViews: Sendable {
  public var views: [(card: Int64, day: Int, viewer: Int64)]
  public var visits: [(card: Int64, day: Int, visitor: Data)]

  public init(
    views: [(card: Int64, day: Int, viewer: Int64)],
    visits: [(card: Int64, day: Int, visitor: Data)]
  ) {
    self.views = views
    self.visits = visits
  }
}

/// What the owners' choices of notices need from a store. The embedded store's is
/// `SQLiteNoticeSettings`.
public protocol NoticeStorage: Sendable {
  func load() throws -> [Int64: Notices.Settings]
  /// Makes the account's stored settings what `current` answers as the write applies.
  func syncing(account: Int64, current: @escaping @Sendable () -> Notices.Settings)
    -> any DurableWrite
  func deleting(account: Int64) -> any DurableWrite
}

/// The cards as a bulk import reads and writes them inside one of the store's transactions
/// (`CardBulkImport`), with the accounts: the store's indexes in place of memory.
public protocol CardsInTransaction: AccountsInTransaction {
  /// The share codes of cards made since cards-v4.
  var codes: IdText { get }
  /// The id after the highest ever given, when the transaction began.
  var nextCard: Int64 { get }
  /// The owner's card an import gave `externalId`.
  func card(owner: Int64, externalId: String) throws -> Card?
  /// How many cards the owner has, and whether one is primary.
  func cardCount(of owner: Int64) throws -> (count: Int, hasPrimary: Bool)
  /// Whether a card made before cards-v4 was given this random code.
  func hasCard(code: String) throws -> Bool
  func hasCard(owner: Int64, slug: String) throws -> Bool
  /// `json`, when given, is `card.fields.json()` written beforehand.
  func insert(_ card: Card, externalId: String, json: String?) throws
  func save(_ card: Card) throws
  func takeReservedURL(of owner: Int64) throws
}

/// Where a bulk import writes. The embedded store's is `SQLiteCardImport`.
public protocol CardImportStorage: WriteCommitter {
  /// A write that runs `body` on the store inside its transaction, outside any savepoint: its
  /// error fails the whole transaction (a chunk's thousand rows in a savepoint made it
  /// quadratic; the import's checkpoint resumes a failed one).
  func importing(_ body: @escaping @Sendable (any CardsInTransaction) throws -> Void)
    -> any DurableWrite
}

/// A card's row as a store reads it at start, its fields not yet parsed.
public struct LoadedCard: Sendable {
  public let id: Int64
  let ownerId: Int64
  /// nil: the id's code (`StoredCards.codes`).
  let code: String?
  let slug: String
  let isPrimary: Bool
  let fields: String
  let createdAt: Date
  let updatedAt: Date
  let externalId: String?

  public init(
    id: Int64, ownerId: Int64, code: String?, slug: String, isPrimary: Bool, fields: String,
    createdAt: Date, updatedAt: Date, externalId: String?
  ) {
    self.id = id
    self.ownerId = ownerId
    self.code = code
    self.slug = slug
    self.isPrimary = isPrimary
    self.fields = fields
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.externalId = externalId
  }

  /// How many rows a store reads before handing them on.
  public static let chunkSize = 16_384

  /// The cards of `rows`, parsed on every core: a store's start parses a million.
  public static func parse(_ rows: [LoadedCard], codes: IdText) throws -> [(
    card: Card, externalId: String?
  )] {
    try rows.concurrentMap { row in
      let card = Card(
        id: row.id, ownerId: row.ownerId, code: row.code ?? codes.text(row.id), slug: row.slug,
        isPrimary: row.isPrimary, fields: try CardFields.stored(row.fields),
        createdAt: row.createdAt, updatedAt: row.updatedAt)
      return (card, row.externalId)
    }
  }
}
