import Accounts
import Foundation
import GRDB
import Store
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

  private let store: Store
  private let configuration: Cards.Configuration

  /// `store` must hold the accounts', cards' and wallets' tables, and no daemon may run on it
  /// (it would not see these writes in its memory).
  public init(store: Store, configuration: Cards.Configuration = .init()) {
    self.store = store
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
    store.commit(
      [
        // A chunk's thousand rows in a savepoint made it quadratic: a failure fails the
        // import, which the checkpoint resumes.
        TransactionWrite(inSavepoint: false) { db in
          var chunk = try Chunk(db, configuration)
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

/// One chunk's transaction: the store as the rules read it, through cached statements.
private struct Chunk {
  let db: Database
  let configuration: Cards.Configuration
  var accounts: StoredAccounts
  var nextCard: Int64
  let codes: IdText

  init(_ db: Database, _ configuration: Cards.Configuration) throws {
    self.db = db
    self.configuration = configuration
    accounts = try StoredAccounts(db)
    // As `Cards` continues the ids when it loads: after the highest ever given.
    nextCard = try RowIds.next(after: "cards", db)
    codes = try Cards.codes(db)
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
    if !invited, let held = try card(owner: owner.id, externalId: externalId) {
      guard let card = Cards.reimported(held, with: fields) else { return .success(.unchanged) }
      // Wallets holding it search its new text once the daemon starts: their indexes are built
      // from the held cards then.
      try Cards.save(card, db)
      return .success(.updated)
    }
    let (count, hasPrimary) = invited ? (0, false) : try cards(of: owner.id)
    let made = try Cards.newCard(
      after: nextCard, codes, owner: owner.id, isPro: owner.isPro, fields: fields, configuration,
      count: count, hasPrimary: hasPrimary,
      codeTaken: { try exists("SELECT EXISTS (SELECT 1 FROM cards WHERE code = ?)", [$0]) },
      slugTaken: { slug in
        try count > 0
          && exists(
            "SELECT EXISTS (SELECT 1 FROM cards WHERE owner_id = ? AND slug = ?)",
            [owner.id, slug])
      })
    guard case .success(let card) = made else { return made.map { _ in .created } }
    // With `read` given, the caller wrote the stored JSON (off this thread, which every row
    // waits for), and the rules kept those very fields (`CardFields.parse(_:isPro:readAs:)`).
    try Cards.insert(card, externalId: externalId, json: row.read == nil ? nil : row.json, db)
    nextCard = card.id + 1
    // A new primary card takes the reserved URL.
    if card.isPrimary && !invited {
      try db.cachedStatement(sql: "DELETE FROM card_reserved_urls WHERE account_id = ?")
        .execute(arguments: [owner.id])
    }
    return .success(.created)
  }

  /// The owner's card an import gave `externalId`, as `Cards` loads it.
  private func card(owner: Int64, externalId: String) throws -> Card? {
    guard
      let row = try Row.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT id, code, slug, is_primary, fields, created_at, updated_at FROM cards
            WHERE owner_id = ? AND external_id = ?
            """), arguments: [owner, externalId])
    else { return nil }
    return Card(
      id: row[0], ownerId: owner, code: row[1] ?? codes.text(row[0]), slug: row[2],
      isPrimary: row[3],
      fields: try CardFields.stored(row[4]),
      createdAt: Date(timeIntervalSince1970: row[5]),
      updatedAt: Date(timeIntervalSince1970: row[6]))
  }

  /// How many cards the owner has, and whether one is primary.
  private func cards(of owner: Int64) throws -> (Int, Bool) {
    let row = try Row.fetchOne(
      db.cachedStatement(
        sql: "SELECT count(*), coalesce(max(is_primary), 0) FROM cards WHERE owner_id = ?"),
      arguments: [owner])
    return (row?[0] ?? 0, row?[1] ?? false)
  }

  private func exists(_ sql: String, _ arguments: StatementArguments) throws -> Bool {
    try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) ?? false
  }
}
