import Accounts
import Cards
import Foundation
import GRDB
import Store

/// A bulk import's writes into the embedded store (`CardBulkImport`): each chunk reads the
/// accounts and cards through the tables' indexes, with cached statements.
public struct SQLiteCardImport: CardImportStorage, StoreBacked {
  let store: Store

  /// `store` must hold the accounts', cards' and wallets' tables.
  public init(_ store: Store) { self.store = store }

  public func importing(_ body: @escaping @Sendable (any CardsInTransaction) throws -> Void)
    -> any DurableWrite
  {
    TransactionWrite(inSavepoint: false) { db in try body(try Chunk(db)) }
  }
}

/// The accounts and cards as one transaction holds them.
private struct Chunk: CardsInTransaction {
  let db: Database
  let usernames: IdText
  let nextAccount: Int64
  let codes: IdText
  let nextCard: Int64

  init(_ db: Database) throws {
    self.db = db
    usernames = try SQLiteAccounts.usernames(db)
    // As the daemon continues the ids when it loads them: after the highest ever given.
    nextAccount = try RowIds.next(after: "accounts", db)
    codes = try SQLiteCards.codes(db)
    nextCard = try RowIds.next(after: "cards", db)
  }

  func account(emailKey: String) throws -> Account? {
    try Row.fetchOne(
      db.cachedStatement(
        sql: "SELECT \(SQLiteAccounts.columns) FROM accounts WHERE email_key = ?"),
      arguments: [emailKey]
    ).map { SQLiteAccounts.account($0, usernames: usernames) }
  }

  func hasAccount(emailKey: String) throws -> Bool {
    try exists("SELECT EXISTS (SELECT 1 FROM accounts WHERE email_key = ?)", [emailKey])
  }

  func hasAccount(username: String) throws -> Bool {
    try exists("SELECT EXISTS (SELECT 1 FROM accounts WHERE username = ?)", [username])
  }

  func insert(_ account: Account) throws { try SQLiteAccounts.insert(account, db) }

  func card(owner: Int64, externalId: String) throws -> Card? {
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
      isPrimary: row[3], fields: try CardFields.stored(row[4]),
      createdAt: Date(timeIntervalSince1970: row[5]),
      updatedAt: Date(timeIntervalSince1970: row[6]))
  }

  func cardCount(of owner: Int64) throws -> (count: Int, hasPrimary: Bool) {
    let row = try Row.fetchOne(
      db.cachedStatement(
        sql: "SELECT count(*), coalesce(max(is_primary), 0) FROM cards WHERE owner_id = ?"),
      arguments: [owner])
    return (row?[0] ?? 0, row?[1] ?? false)
  }

  func hasCard(code: String) throws -> Bool {
    try exists("SELECT EXISTS (SELECT 1 FROM cards WHERE code = ?)", [code])
  }

  func hasCard(owner: Int64, slug: String) throws -> Bool {
    try exists(
      "SELECT EXISTS (SELECT 1 FROM cards WHERE owner_id = ? AND slug = ?)", [owner, slug])
  }

  func insert(_ card: Card, externalId: String, json: String?) throws {
    try SQLiteCards.insert(card, externalId: externalId, json: json, db)
  }

  func save(_ card: Card) throws { try SQLiteCards.save(card, db) }

  func takeReservedURL(of owner: Int64) throws { try SQLiteCards.takeReservedURL(of: owner, db) }

  private func exists(_ sql: String, _ arguments: StatementArguments) throws -> Bool {
    try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) ?? false
  }
}
