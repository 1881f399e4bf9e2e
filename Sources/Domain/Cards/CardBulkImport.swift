import Accounts
import Durability
import Foundation
import Synchronization

/// `cardatlas import` into a data directory the daemon is not running on: each chunk of rows
/// is one write in one of the store's transactions, and what the rules ask (the owner's
/// account, the card of an external id, the owner's cards, codes and slugs taken, the reserved
/// URL) is read from the store's indexes instead of held in memory, so that memory stays flat
/// over any number of rows. The rules are the domain's own (`Cards.importRow`,
/// `Cards.newCard`, `Cards.reimported`, `Accounts.invite`), and the rows are those
/// `importCard` writes: a daemon started on the directory afterwards loads the same cards.
public final class CardBulkImport: Sendable {
  /// One row: the card `externalId` of `ownerEmail`, as `Cards.importCard` takes it.
  public struct Row: Sendable {
    public var ownerEmail: String
    public var externalId: String
    /// The card's JSON: when `read` is given, its stored text, `read.json()`.
    public var json: String
    /// `CardFields.read(object:)` of the row's JSON object, if done (nil: `json` is read).
    public var read: CardFields?

    public init(ownerEmail: String, externalId: String, json: String, read: CardFields? = nil) {
      self.ownerEmail = ownerEmail
      self.externalId = externalId
      self.json = json
      self.read = read
    }
  }

  private let storage: any CardImportStorage
  private let configuration: Cards.Configuration

  /// No daemon may run on `storage`'s store: it would not see these writes in its memory.
  public init(storage: any CardImportStorage, configuration: Cards.Configuration = .init()) {
    self.storage = storage
    self.configuration = configuration
  }

  /// Queues the rows' write behind any queued before (the store's writer applies them in that
  /// order, in one transaction, which it may share with the next queued writes) and returns
  /// the task that answers once they are durable: each row's outcome or its refusal (`INVALID`,
  /// `LIMIT`), which writes nothing of that row. A thrown error means none of the rows was
  /// written.
  public func write(_ rows: [Row]) -> Task<[Result<ImportOutcome, CardError>], any Error> {
    guard !rows.isEmpty else { return Task { [] } }
    let outcomes = Mutex<[Result<ImportOutcome, CardError>]>([])
    let configuration = self.configuration
    let (durable, done) = AsyncThrowingStream<Void, any Error>.makeStream()
    storage.commit(
      [
        storage.importing { store in
          var chunk = Chunk(store, configuration)
          let written = try rows.map { try chunk.write($0) }
          outcomes.withLock { $0 = written }
        }
      ]
    ) { result in
      if case .failure(let error) = result { done.finish(throwing: error) } else { done.finish() }
    }
    return Task {
      for try await _ in durable {}
      return outcomes.withLock { $0 }
    }
  }
}

/// One chunk's transaction: the rules over the store as it holds the cards and accounts.
private struct Chunk {
  let store: any CardsInTransaction
  let configuration: Cards.Configuration
  var accounts: InvitingAccounts
  var nextCard: Int64

  init(_ store: any CardsInTransaction, _ configuration: Cards.Configuration) {
    self.store = store
    self.configuration = configuration
    accounts = InvitingAccounts(store)
    nextCard = store.nextCard
  }

  mutating func write(_ row: CardBulkImport.Row) throws -> Result<
    ImportOutcome, CardError
  > {
    var invited = false
    let checked = try Cards.importRow(
      externalId: row.externalId, json: row.json, read: row.read,
      owner: { try accounts.account(email: row.ownerEmail) },
      invite: {
        invited = true
        return try accounts.invite(email: row.ownerEmail)
      })
    guard case .success(let (owner, externalId, fields)) = checked else {
      return checked.map { _ in .created }
    }
    // An owner invited just now has no cards, no primary card and no reserved URL.
    if !invited, let held = try store.card(owner: owner.id, externalId: externalId) {
      guard let card = Cards.reimported(held, with: fields) else { return .success(.unchanged) }
      // Wallets holding it search its new text once the daemon starts: their indexes are built
      // from the held cards then.
      try store.save(card)
      return .success(.updated)
    }
    let (count, hasPrimary) = invited ? (0, false) : try store.cardCount(of: owner.id)
    let made = try Cards.newCard(
      after: nextCard, store.codes, owner: owner.id, isPro: owner.isPro, fields: fields,
      configuration, count: count, hasPrimary: hasPrimary,
      codeTaken: { try store.hasCard(code: $0) },
      slugTaken: { try count > 0 && store.hasCard(owner: owner.id, slug: $0) })
    guard case .success(let card) = made else { return made.map { _ in .created } }
    // With `read` given, the caller wrote the stored JSON (off this thread, which every row
    // waits for), and the rules kept those very fields (`CardFields.parse(_:isPro:readAs:)`).
    try store.insert(card, externalId: externalId, json: row.read == nil ? nil : row.json)
    nextCard = card.id + 1
    // A new primary card takes the reserved URL.
    if card.isPrimary && !invited { try store.takeReservedURL(of: owner.id) }
    return .success(.created)
  }
}
