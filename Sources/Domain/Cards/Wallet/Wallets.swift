import Accounts
import Durability
import Foundation
import Synchronization

/// The wallets: each account keeps other people's cards, added by share code or URL, listed
/// newest first and searched by text (`WalletIndex`, in memory). Held in memory (loaded from
/// the store at start, the search index rebuilt from the held cards), written through the
/// store's group commit, answered once durable. A held card that changes is searched by its
/// new text; one that is deleted, or whose owner's account is,
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

  struct Wallet {
    /// Oldest first.
    var order: [Key] = []
    var added: [Int64: Int64] = [:]
    var index = WalletIndex()

    /// How many keys sort before `key`.
    func rank(_ key: Key) -> Int {
      var (low, high) = (0, order.count)
      while low < high {
        let mid = (low + high) / 2
        if order[mid] < key { low = mid + 1 } else { high = mid }
      }
      return low
    }

    mutating func insert(_ key: Key, _ text: WalletText, loading: Bool = false) {
      order.insert(key, at: rank(key))
      added[key.card] = key.micros
      index.insert(key, text, loading: loading)
    }

    mutating func remove(_ card: Int64) {
      guard let micros = added.removeValue(forKey: card) else { return }
      order.remove(at: rank(Key(micros: micros, card: card)))
      index.remove(card)
    }
  }

  struct State {
    var wallets: [Int64: Wallet] = [:]
    var holders: [Int64: Set<Int64>] = [:]

    /// The holder's wallet holds the card (`text` its held card's) since `micros`.
    mutating func hold(
      _ holder: Int64, _ card: Int64, since micros: Int64, _ text: WalletText,
      loading: Bool = false
    ) {
      wallets[holder, default: Wallet()].insert(
        Key(micros: micros, card: card), text, loading: loading)
      holders[card, default: []].insert(holder)
    }

    /// The holder's whole wallet goes at once: not card by card through its order and index.
    mutating func removeWallet(of holder: Int64) {
      for card in wallets.removeValue(forKey: holder)?.added.keys.map({ $0 }) ?? [] {
        holders[card]?.remove(holder)
        if holders[card]?.isEmpty == true { holders[card] = nil }
      }
    }
  }

  public static let maxListCount = 1000
  public static let maxSearchCount = 100

  let storage: any WalletStorage
  let cards: Cards
  let notices: Notices
  let state = Mutex(State())
  public typealias Done<T> = Cards.Done<T>

  public init(storage: any WalletStorage, cards: Cards, notices: Notices) throws {
    self.storage = storage
    self.cards = cards
    self.notices = notices
    let entries = try storage.load()
    state.withLock { s in
      for (holder, card, micros) in entries {
        // The store deletes a card's entries with it; an entry without its card is skipped.
        guard let held = cards.held(card) else { continue }
        s.hold(holder, card, since: micros, WalletText(held), loading: true)
      }
      for holder in Array(s.wallets.keys) { s.wallets[holder]?.index.finishLoading() }
    }
    let observer = Observer(wallets: self)
    cards.addObserver(observer)
    cards.accounts.addObserver(observer)
  }

  // MARK: Reading

  /// The account's cards, newest first, `page.count` from `page.cursor`; the cursor of
  /// the next page, nil at the end. A cursor is an entry's place, so entries added or removed
  /// meanwhile never make a page repeat or skip another entry.
  public func list(account: Int64, page: WalletPage) -> ([WalletEntry], next: WalletCursor?) {
    let (count, cursor) = (page.count, page.cursor)
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

  /// Whether the account's wallet holds the card.
  func holds(_ account: Int64, _ card: Int64) -> Bool {
    state.withLock { $0.wallets[account]?.added[card] != nil }
  }

  /// The account's active cards whose text has every word of `text` (at most 16) as a word's
  /// prefix, accents and case ignored; the best match first (bm25 over the wallet, see
  /// `WalletIndex.matches`), then the newest added; at most `count`.
  public func search(account: Int64, text: String, count: Int) -> [WalletEntry] {
    let words = WalletText.query(text)
    guard !words.isEmpty else { return [] }
    var ranked = state.withLock { $0.wallets[account]?.index.matches(words) ?? [] }
    ranked.sort { ($0.score, $0.key) > ($1.score, $1.key) }
    var found: [WalletEntry] = []
    for match in ranked {
      guard found.count < count else { break }
      if let entry = entry(account, match.key.card), entry.isActive { found.append(entry) }
    }
    return found
  }

  /// How many wallets hold the card.
  public func holderCount(of cardId: Int64) -> Int {
    state.withLock { $0.holders[cardId]?.count ?? 0 }
  }

  // MARK: Writing

  /// Adds another account's active card by its share code or share URL; adding a card already
  /// held answers its entry again. Each is a look-up by code, counted for the account and its
  /// address (`client`) as `card(_:readBy:client:)` counts one.
  public func add(
    account: Int64, _ codeOrURL: String, client: String, _ done: @escaping Done<WalletEntry>
  ) {
    if let refused = cards.countCodeRead(viewer: account, client: client) {
      return done(.failure(refused))
    }
    let found: Result<Card, CardError>
    switch resolve(codeOrURL) {
    case .card(let card) where card.ownerId == account:
      found = .failure(.ownCard)
    case .card(let card):
      found = cards.isActive(card) ? .success(card) : .failure(.inactive)
    case .inactive: found = .failure(.inactive)
    case .placeholder, .notFound: found = .failure(.notFound)
    }
    guard case .success(let card) = found else {
      if case .failure(let error) = found { done(.failure(error)) }
      return
    }
    let now = Self.micros(Date())
    // Under the lock, so that a deletion of the card (which takes it after the card is gone)
    // either sees the entry or prevents it.
    let added = state.withLock { s -> Bool? in
      guard let held = cards.held(card.id) else { return nil }
      if s.wallets[account]?.added[card.id] != nil { return false }
      s.hold(account, card.id, since: now, WalletText(held))
      return true
    }
    switch added {
    case nil: done(.failure(.notFound))
    case false?:
      done(entry(account, card.id).map { .success($0) } ?? .failure(.notFound))
    case true?:
      commit([sync(account, card.id)] + notices.walletAdded(card, by: account)) { [self] result in
        if case .failure(.tryAgain) = result { unhold(account, card.id, since: now) }
        done(result.flatMap { entry(account, card.id).map { .success($0) } ?? .failure(.notFound) })
      }
    }
  }

  /// Puts `card` in the account's wallet as part of another module's change (an exchange of
  /// cards): memory now, and the writes for that change's transaction. A card already held,
  /// the account's own, or one no longer held gives no writes.
  public func adding(_ card: Card, to account: Int64, at date: Date) -> [any DurableWrite] {
    guard card.ownerId != account else { return [] }
    let micros = Self.micros(date)
    let added = state.withLock { s -> Bool in
      guard let held = cards.held(card.id), s.wallets[account]?.added[card.id] == nil else {
        return false
      }
      s.hold(account, card.id, since: micros, WalletText(held))
      return true
    }
    return added ? [sync(account, card.id)] + notices.walletAdded(card, by: account) : []
  }

  /// Undoes `adding` when its change was not written at all (`TRYAGAIN`), so that memory is
  /// what the store holds: the entry goes if it is still the one added at `date`.
  public func undoAdding(_ card: Card, to account: Int64, at date: Date) {
    unhold(account, card.id, since: Self.micros(date))
  }

  /// A time as an entry's `added` holds it: microseconds since 1970.
  private static func micros(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1e6).rounded())
  }

  /// Takes out the entry added at `since`, not one a later command made (whose own write
  /// carries it).
  private func unhold(_ account: Int64, _ cardId: Int64, since: Int64) {
    state.withLock { s in
      if s.wallets[account]?.added[cardId] == since { forget(account, cardId, in: &s) }
    }
  }

  /// Removes a card from the account's wallet; whether it held it.
  public func remove(account: Int64, cardId: Int64, _ done: @escaping Done<Bool>) {
    let removed = state.withLock { s -> Int64? in
      guard let since = s.wallets[account]?.added[cardId] else { return nil }
      forget(account, cardId, in: &s)
      return since
    }
    guard let removed else { return done(.success(false)) }
    commit([sync(account, cardId)]) { [self] result in
      // Not written at all: the entry is back, unless a later command changed it meanwhile.
      if case .failure(.tryAgain) = result, let held = cards.held(cardId) {
        state.withLock { s in
          if s.wallets[account]?.added[cardId] == nil {
            s.hold(account, cardId, since: removed, WalletText(held))
          }
        }
      }
      done(result.map { true })
    }
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
      card: card.shown(to: account), isActive: cards.isActive(card),
      addedAt: Date(timeIntervalSince1970: Double(micros) / 1e6))
  }

  func forget(_ account: Int64, _ cardId: Int64, in s: inout State) {
    s.wallets[account]?.remove(cardId)
    if s.wallets[account]?.added.isEmpty == true { s.wallets[account] = nil }
    s.holders[cardId]?.remove(account)
    if s.holders[cardId]?.isEmpty == true { s.holders[cardId] = nil }
  }

  /// A write that makes the store's entry for (account, card) what memory holds when it
  /// applies: writes racing for one entry (an add, the card's deletion) then leave the latest
  /// state whatever order they commit in.
  private func sync(_ account: Int64, _ cardId: Int64) -> any DurableWrite {
    storage.syncing(holder: account, card: cardId) { [self] in
      guard cards.held(cardId) != nil else { return nil }
      return state.withLock { $0.wallets[account]?.added[cardId] }
    }
  }

  private func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    cards.commit(writes, done)
  }

  /// Told of held cards' changes and deletions, and of deleted accounts.
  private struct Observer: CardObserver, AccountObserver {
    let wallets: Wallets

    /// Every holder's index takes the card's text as held now (not `card`: of two racing
    /// updates, the later told may be the earlier made).
    func cardChanged(_ card: Card) -> [any DurableWrite] {
      let holders = wallets.state.withLock { s -> Set<Int64> in
        let holders = s.holders[card.id] ?? []
        guard !holders.isEmpty, let held = wallets.cards.held(card.id) else { return holders }
        let text = WalletText(held)
        for holder in holders {
          if let micros = s.wallets[holder]?.added[card.id] {
            s.wallets[holder]?.index.insert(Key(micros: micros, card: card.id), text)
          }
        }
        return holders
      }
      guard !holders.isEmpty else { return [] }
      return [wallets.notices.changed(card, holders: holders)]
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
      wallets.state.withLock { $0.removeWallet(of: id) }
      return [wallets.storage.deletingWallet(of: id)]
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
