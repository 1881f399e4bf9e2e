import Accounts
import Foundation
import GRDB
import Store
import Synchronization

/// The wallets: each account keeps other people's cards, added by share code or URL, listed
/// newest first and searched by text (SQLite FTS5). Held in memory (loaded from the store at
/// start), written through the store's group commit, answered once durable. A held card that
/// changes is searched by its new text; one that is deleted, or whose owner's account is,
/// leaves every wallet; a deleted account's wallet goes. A held card that turns inactive stays,
/// shown as inactive and never found by a search. Every holder hears of a held card's change
/// or removal on its `wallet:<id>` channel (`Notices`). Knows nothing of RESP.
public final class Wallets: Sendable {
  /// An entry's place in its wallet: when it was added, then the card's id.
  struct Key: Comparable, Sendable {
    var micros: Int64
    var card: Int64
    static func < (a: Key, b: Key) -> Bool { (a.micros, a.card) < (b.micros, b.card) }
  }

  private struct Wallet {
    /// Oldest first.
    var order: [Key] = []
    var added: [Int64: Int64] = [:]

    /// How many keys sort before `key`.
    func rank(_ key: Key) -> Int {
      var (low, high) = (0, order.count)
      while low < high {
        let mid = (low + high) / 2
        if order[mid] < key { low = mid + 1 } else { high = mid }
      }
      return low
    }

    mutating func insert(_ key: Key) {
      order.insert(key, at: rank(key))
      added[key.card] = key.micros
    }

    mutating func remove(_ card: Int64) {
      guard let micros = added.removeValue(forKey: card) else { return }
      order.remove(at: rank(Key(micros: micros, card: card)))
    }
  }

  private struct State {
    var wallets: [Int64: Wallet] = [:]
    var holders: [Int64: Set<Int64>] = [:]
  }

  public static let maxListCount = 1000
  public static let maxSearchCount = 100

  let store: Store
  let cards: Cards
  let notices: Notices
  private let state = Mutex(State())
  public typealias Done<T> = Cards.Done<T>

  public init(store: Store, cards: Cards, notices: Notices) throws {
    self.store = store
    self.cards = cards
    self.notices = notices
    let rows = try store.read { db in
      try Row.fetchAll(db, sql: "SELECT account_id, card_id, added_at FROM wallet_entries")
    }
    state.withLock { s in
      for row in rows {
        let (holder, card): (Int64, Int64) = (row["account_id"], row["card_id"])
        let added: Double = row["added_at"]
        s.wallets[holder, default: Wallet()].insert(
          Key(micros: Int64((added * 1e6).rounded()), card: card))
        s.holders[card, default: []].insert(holder)
      }
    }
    let observer = Observer(wallets: self)
    cards.addObserver(observer)
    cards.accounts.addObserver(observer)
  }

  // MARK: Reading

  /// The account's cards, newest first, `count` from `cursor` (nil: the newest); the cursor of
  /// the next page, nil at the end. A cursor is an entry's place, so entries added or removed
  /// meanwhile never make a page repeat or skip another entry.
  public func list(account: Int64, count: Int, cursor: WalletCursor?) -> (
    [WalletEntry], next: WalletCursor?
  ) {
    let (keys, more) = state.withLock { s -> ([Key], Bool) in
      guard let wallet = s.wallets[account] else { return ([], false) }
      let end = cursor.map { wallet.rank($0.key) } ?? wallet.order.count
      let start = max(0, end - count)
      return (wallet.order[start..<end].reversed(), start > 0)
    }
    let entries = keys.compactMap { entry(account, $0.card) }
    return (entries, more ? keys.last.map { WalletCursor(key: $0) } : nil)
  }

  /// What `CARD.SEARCH NEW` leaves out for the account: its own cards, and those its wallet
  /// holds.
  public func seen(by account: Int64) -> Set<Int64> {
    let held = state.withLock { $0.wallets[account].map { Set($0.added.keys) } ?? [] }
    return held.union(cards.cards(of: account).map(\.id))
  }

  /// The account's active cards whose text has every word of `text` as a word's prefix,
  /// accents and case ignored; the best match first (bm25), at most `count`.
  public func search(account: Int64, text: String, count: Int) -> Result<[WalletEntry], CardError> {
    guard let match = Self.match(text) else { return .success([]) }
    let range = Self.rowid(account, 0)...Self.rowid(account, 0xFFFF_FFFF)
    do {
      return .success(
        try store.read { db in
          var found: [WalletEntry] = []
          // Cached: compiled once per connection, not for every search.
          let rows = try Int64.fetchCursor(
            db.cachedStatement(
              sql: """
                SELECT rowid FROM wallet_search
                WHERE wallet_search MATCH ? AND rowid BETWEEN ? AND ?
                ORDER BY bm25(wallet_search, 10, 5, 5, 3, 2, 1)
                """),
            arguments: [match, range.lowerBound, range.upperBound])
          while found.count < count, let rowid = try rows.next() {
            if let entry = entry(account, rowid & 0xFFFF_FFFF), entry.isActive {
              found.append(entry)
            }
          }
          return found
        })
    } catch {
      return .failure(.notPersisted("\(error)"))
    }
  }

  /// How many wallets hold the card.
  public func holderCount(of cardId: Int64) -> Int {
    state.withLock { $0.holders[cardId]?.count ?? 0 }
  }

  // MARK: Writing

  /// Adds another account's active card by its share code or share URL; adding a card already
  /// held answers its entry again.
  public func add(account: Int64, _ codeOrURL: String, _ done: @escaping Done<WalletEntry>) {
    let found: Result<Card, CardError>
    switch resolve(codeOrURL) {
    case .card(let card) where card.ownerId == account:
      found = .failure(.invalid(CardFieldError(field: "card", reason: "your own card")))
    case .card(let card):
      found = cards.isActive(card) ? .success(card) : .failure(.inactive)
    case .inactive: found = .failure(.inactive)
    case .placeholder, .notFound: found = .failure(.notFound)
    }
    guard case .success(let card) = found else {
      if case .failure(let error) = found { done(.failure(error)) }
      return
    }
    guard account >= 0, account < 1 << 31, card.id < 1 << 32 else {
      return done(.failure(.badQuery("the wallet cannot hold this card")))
    }
    let now = Int64((Date().timeIntervalSince1970 * 1e6).rounded())
    // Under the lock, so that a deletion of the card (which takes it after the card is gone)
    // either sees the entry or prevents it.
    let added = state.withLock { s -> Bool? in
      guard cards.held(card.id) != nil else { return nil }
      if s.wallets[account]?.added[card.id] != nil { return false }
      s.wallets[account, default: Wallet()].insert(Key(micros: now, card: card.id))
      s.holders[card.id, default: []].insert(account)
      return true
    }
    switch added {
    case nil: done(.failure(.notFound))
    case false?:
      done(entry(account, card.id).map { .success($0) } ?? .failure(.notFound))
    case true?:
      commit([sync(account, card.id)] + notices.walletAdded(card, by: account)) { [self] result in
        done(result.flatMap { entry(account, card.id).map { .success($0) } ?? .failure(.notFound) })
      }
    }
  }

  /// Puts `card` in the account's wallet as part of another module's change (an exchange of
  /// cards): memory now, and the writes for that change's transaction. A card already held,
  /// the account's own, or one no longer held gives no writes.
  public func adding(_ card: Card, to account: Int64, at date: Date) -> [any DurableWrite] {
    guard card.ownerId != account, account >= 0, account < 1 << 31, card.id < 1 << 32 else {
      return []
    }
    let micros = Int64((date.timeIntervalSince1970 * 1e6).rounded())
    let added = state.withLock { s -> Bool in
      guard cards.held(card.id) != nil, s.wallets[account]?.added[card.id] == nil else {
        return false
      }
      s.wallets[account, default: Wallet()].insert(Key(micros: micros, card: card.id))
      s.holders[card.id, default: []].insert(account)
      return true
    }
    return added ? [sync(account, card.id)] + notices.walletAdded(card, by: account) : []
  }

  /// Removes a card from the account's wallet; whether it held it.
  public func remove(account: Int64, cardId: Int64, _ done: @escaping Done<Bool>) {
    let removed = state.withLock { s -> Bool in
      guard s.wallets[account]?.added[cardId] != nil else { return false }
      forget(account, cardId, in: &s)
      return true
    }
    guard removed else { return done(.success(false)) }
    commit([sync(account, cardId)]) { done($0.map { true }) }
  }

  // MARK: Helpers

  /// What a share code or share URL (`<public-url>/c/<username>[/<slug>]`, with or without a
  /// trailing slash or query) names.
  private func resolve(_ codeOrURL: String) -> OpenedCard {
    var text = Substring(codeOrURL.trimmingCharacters(in: .whitespaces))
    if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
    while text.hasSuffix("/") { text = text.dropLast() }
    let base = cards.configuration.publicURL + "/c/"
    guard text.hasPrefix(base) else {
      return cards.held(code: String(text)).map { .card($0) } ?? .notFound
    }
    let parts = text.dropFirst(base.count).split(separator: "/", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), !parts.contains(where: \.isEmpty) else {
      return .notFound
    }
    return cards.open(
      username: String(parts[0]), slug: parts.count == 2 ? String(parts[1]) : nil)
  }

  /// The entry as its holder sees it, while the card is held.
  private func entry(_ account: Int64, _ cardId: Int64) -> WalletEntry? {
    guard let micros = state.withLock({ $0.wallets[account]?.added[cardId] }),
      let card = cards.held(cardId)
    else { return nil }
    return WalletEntry(
      card: card, isActive: cards.isActive(card),
      addedAt: Date(timeIntervalSince1970: Double(micros) / 1e6))
  }

  private func forget(_ account: Int64, _ cardId: Int64, in s: inout State) {
    s.wallets[account]?.remove(cardId)
    if s.wallets[account]?.added.isEmpty == true { s.wallets[account] = nil }
    s.holders[cardId]?.remove(account)
    if s.holders[cardId]?.isEmpty == true { s.holders[cardId] = nil }
  }

  /// A write that makes the store's entry and search row for (account, card) what memory holds
  /// when it applies: writes racing for one entry (an add, the card's update or deletion) then
  /// leave the latest state whatever order they commit in.
  private func sync(_ account: Int64, _ cardId: Int64) -> any DurableWrite {
    TransactionWrite { [self] db in
      let rowid = Self.rowid(account, cardId)
      let micros = state.withLock { $0.wallets[account]?.added[cardId] }
      try db.execute(sql: "DELETE FROM wallet_search WHERE rowid = ?", arguments: [rowid])
      guard let micros, let card = cards.held(cardId) else {
        try db.execute(
          sql: "DELETE FROM wallet_entries WHERE account_id = ? AND card_id = ?",
          arguments: [account, cardId])
        return
      }
      try db.execute(
        sql: """
          INSERT INTO wallet_entries (account_id, card_id, added_at) VALUES (?, ?, ?)
          ON CONFLICT (account_id, card_id) DO UPDATE SET added_at = excluded.added_at
          """,
        arguments: [account, cardId, Double(micros) / 1e6])
      try Self.insertSearchRow(rowid, card.fields, db)
    }
  }

  /// The search row of a held card's text (after its old one was deleted): what `sync` writes,
  /// and a bulk import for the holders of a card it updates (`CardBulkImport`).
  static func insertSearchRow(_ rowid: Int64, _ f: CardFields, _ db: GRDB.Database) throws {
    let name = [f.prefix, f.firstName, f.middleName, f.lastName].compactMap { $0 }
    try db.execute(
      sql: """
        INSERT INTO wallet_search (rowid, name, company, job_title, email, city, about_me)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
      arguments: [
        rowid, name.joined(separator: " "), f.company, f.jobTitle, f.email, f.address?.city,
        f.aboutMe,
      ])
  }

  private func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    cards.commit(writes, done)
  }

  static func rowid(_ account: Int64, _ card: Int64) -> Int64 { account << 32 | card }

  /// An FTS5 query: each word of `text` (letters and digits) as a quoted prefix, all required;
  /// nil when there is none. At most 16 words.
  static func match(_ text: String) -> String? {
    let words = text.split { !($0.isLetter || $0.isNumber) }.prefix(16)
    guard !words.isEmpty else { return nil }
    return words.map { "\"\($0)\"*" }.joined(separator: " ")
  }

  /// Told of held cards' changes and deletions, and of deleted accounts.
  private struct Observer: CardObserver, AccountObserver {
    let wallets: Wallets

    func cardChanged(_ card: Card) -> [any DurableWrite] {
      let holders = wallets.state.withLock { $0.holders[card.id] ?? [] }
      guard !holders.isEmpty else { return [] }
      return holders.map { wallets.sync($0, card.id) }
        + [wallets.notices.changed(card, holders: holders)]
    }

    func cardDeleted(_ card: Card) -> [any DurableWrite] {
      let holders = wallets.state.withLock { s -> Set<Int64> in
        let holders = s.holders[card.id] ?? []
        for holder in holders { wallets.forget(holder, card.id, in: &s) }
        return holders
      }
      guard !holders.isEmpty else { return [] }
      return holders.map { wallets.sync($0, card.id) }
        + [wallets.notices.removed(card, holders: holders)]
    }

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      wallets.state.withLock { s in
        for card in s.wallets[id]?.added.keys.map({ $0 }) ?? [] {
          wallets.forget(id, card, in: &s)
        }
      }
      return [
        TransactionWrite { db in
          try db.execute(sql: "DELETE FROM wallet_entries WHERE account_id = ?", arguments: [id])
          try db.execute(
            sql: "DELETE FROM wallet_search WHERE rowid BETWEEN ? AND ?",
            arguments: [Wallets.rowid(id, 0), Wallets.rowid(id, 0xFFFF_FFFF)])
        }
      ]
    }

    /// The account's other cards than its primary turned active or inactive: their holders
    /// hear it.
    func proChanged(_ account: Account) -> [any DurableWrite] {
      wallets.cards.cards(of: account.id).filter { !$0.isPrimary }.compactMap { card in
        let holders = wallets.state.withLock { $0.holders[card.id] ?? [] }
        return holders.isEmpty ? nil : wallets.notices.changed(card, holders: holders)
      }
    }
  }
}

/// A held card as its holder sees it.
public struct WalletEntry: Sendable {
  public let card: Card
  /// An inactive card (its owner's Pro ended) shows nothing but its id.
  public let isActive: Bool
  public let addedAt: Date
}

/// Where a page of `WALLET.LIST` ends: `<microseconds>-<cardId>` of its last entry.
public struct WalletCursor: Sendable, Equatable {
  let key: Wallets.Key

  init(key: Wallets.Key) { self.key = key }

  public init?(_ text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let micros = Int64(parts[0]), let card = Int64(parts[1]) else {
      return nil
    }
    key = Wallets.Key(micros: micros, card: card)
  }

  public var text: String { "\(key.micros)-\(key.card)" }
}
