import Accounts
import DomainSupport
import Durability
import Foundation
import Geocoding
import Geodesy
import RateLimits
import SpatialIndex
import Synchronization

/// The cards and their rules: the plans' limits, share codes and URLs, the primary card and its
/// reserved URL, inactive cards when Pro ends, who may change what, and the map. Held in memory
/// (loaded from the store at start), written through the store's group commit, answered once
/// durable. Knows nothing of RESP or HTTP.
public final class Cards: Sendable {
  public struct Configuration: Sendable {
    public var freeCardLimit = 1
    public var proCardLimit = 10
    /// The base of share URLs (`--public-url`).
    public var publicURL = "http://127.0.0.1:8080"
    /// What `CARD.LOCATE <id> ADDRESS` asks; nil: the command answers that none is configured.
    public var geocoder: (any Geocoder)?
    /// Cards one account, and one address, may look up by share code or share URL in an hour
    /// (0: no limit): codes are not guessable, but each look-up is a guess.
    public var codeReadsPerAccount = 300
    public var codeReadsPerAddress = 1_000

    public init() {}

    func plan(isPro: Bool) -> CardPlan {
      CardPlan(cards: isPro ? proCardLimit : freeCardLimit, isPro: isPro)
    }
  }

  struct State {
    var cards = HeldCards()
    var byOwner = CardsByOwner()
    /// The owners with a primary card: what a new card is checked against, without reading
    /// (unpacking) each of the owner's cards under the lock.
    var withPrimary = IdSet()
    /// Accounts whose primary card was deleted: its URL shows a placeholder.
    var reserved: Set<Int64> = []
    var nextCard: Int64 = 1
    /// Imported cards' external ids (`importCard`): by card, and the card by owner and id.
    var externalIds = IdTable<String>()
    var byExternalId = IdIndex()
    /// On a store many nodes share: this node's writes of each card whose feed rows it has not
    /// read yet (`apply(followed:own:)`). Nil: the store is this node's alone.
    var pending: [Int64: Int]?

    /// The card imported under `key` (`importCard`).
    func card(imported key: ExternalKey) -> Int64? {
      byExternalId.first(hash: key.hashValue) {
        cards.owner(of: $0) == key.owner && externalIds[$0] == key.externalId
      }
    }

    /// Records the external id an import gave a card already held.
    mutating func setExternalId(_ externalId: String, of id: Int64, owner: Int64) {
      externalIds[id] = externalId
      let key = ExternalKey(owner: owner, externalId: externalId)
      byExternalId.insert(id, hash: key.hashValue, hashOf: Self.externalHash(cards, externalIds))
    }

    mutating func forgetExternalId(of id: Int64, owner: Int64) {
      guard let externalId = externalIds[id] else { return }
      let key = ExternalKey(owner: owner, externalId: externalId)
      byExternalId.remove(id, hash: key.hashValue, hashOf: Self.externalHash(cards, externalIds))
      self.externalIds[id] = nil
    }

    /// An indexed card's hash, read from copies of the tables: the index being changed is part
    /// of `self`.
    private static func externalHash(_ cards: HeldCards, _ externalIds: IdTable<String>)
      -> (Int64) -> Int
    {
      { ExternalKey(owner: cards.owner(of: $0)!, externalId: externalIds[$0]!).hashValue }
    }

    /// Keeps a card this node is writing.
    mutating func save(_ card: Card) {
      cards[card.id] = card
      pending?[card.id, default: 0] += 1
    }

    /// One of this node's writes of the card is in the feed (or failed: it never will be).
    mutating func seen(ownWriteOf id: Int64) {
      guard let count = pending?[id] else { return }
      pending?[id] = count > 1 ? count - 1 : nil
    }
  }

  struct ExternalKey: Hashable {
    let owner: Int64
    let externalId: String
  }

  let storage: any CardStorage
  let accounts: Accounts
  /// The cards' share codes, made from their ids.
  let codes: IdText
  public let configuration: Configuration
  let state: Mutex<State>
  let map: CardMap
  /// Whether this start read the cards from the held file (`keepHeld`), not from the rows.
  public let loadedFromHeld: Bool
  let codeReads: KeyedLimit
  let codeReadsByAddress: KeyedLimit
  let newsShare = Mutex<(@Sendable (CardsNews) -> Void)?>(nil)
  private let observers = Mutex<[any CardObserver]>([])
  private let guards = Mutex<[any CardFieldsGuard]>([])
  public typealias Done<T> = @Sendable (Result<T, CardError>) -> Void

  /// `held`: the cards' held file, if already being read (`HeldRead`).
  public init(
    storage: any CardStorage, accounts: Accounts, configuration: Configuration = .init(),
    held: HeldRead? = nil
  ) throws {
    self.storage = storage
    self.accounts = accounts
    self.configuration = configuration
    codeReads = KeyedLimit(configuration.codeReadsPerAccount, per: 3_600)
    codeReadsByAddress = KeyedLimit(configuration.codeReadsPerAddress, per: 3_600)
    if let (codes, restored) = (held ?? HeldRead(storage, configuration, now: true)).take() {
      self.codes = codes
      map = CardMap(placed: restored.placed)
      let held = restored.state
      state = Mutex(held)
      loadedFromHeld = true
    } else {
      let (loaded, codes, placed) = try Self.load(storage, accounts, configuration)
      self.codes = codes
      // One bulk build of the map, not an insert per card.
      map = CardMap(placed: placed)
      state = Mutex(loaded)
      loadedFromHeld = false
    }
    accounts.addObserver(Observer(cards: self))
  }

  /// Every card from the store's rows, a chunk at a time, each card packed as it is read: never
  /// every card parsed at once.
  private static func load(
    _ storage: any CardStorage, _ accounts: Accounts, _ configuration: Configuration
  ) throws -> (State, IdText, [(item: Item, summary: [UInt8])]) {
    var s = State()
    if storage.cardIDs != nil { s.pending = [:] }
    var placed: [(item: Item, summary: [UInt8])] = []
    let stored = try storage.load { chunk in
      // The map's entries, on every core.
      let onMap = try chunk.concurrentMap { [configuration] card, _ in
        CardMap.item(card).flatMap { item in
          CardSummary.onMap(
            card, owner: accounts.account(card.ownerId), publicURL: configuration.publicURL
          ).map { (item, $0) }
        }
      }
      placed += onMap.compactMap { $0 }
      for (card, externalId) in chunk {
        Self.add(card, to: &s)
        if let externalId {
          s.setExternalId(externalId, of: card.id, owner: card.ownerId)
        }
      }
    }
    s.nextCard = stored.nextId
    s.reserved = stored.reserved
    return (s, stored.codes, placed)
  }

  /// The cards' held file (`CardStorage.takeHeld`), read on a thread of its own while the
  /// accounts load: the cards read from it need nothing of theirs.
  public final class HeldRead: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written once, before `done` is signalled; read after waiting for it.
    private var read: (IdText, CardsHeldFile.Restored)?

    public convenience init(_ storage: any CardStorage, _ configuration: Configuration) {
      self.init(storage, configuration, now: false)
    }

    init(_ storage: any CardStorage, _ configuration: Configuration, now: Bool) {
      let body: @Sendable () -> Void = { [self] in
        // Anything amiss (none kept, another build's, unreadable) reads the rows instead.
        if let (held, codes) = try? storage.takeHeld(),
          let restored = try? CardsHeldFile.read(held, maker: Cards.heldMaker(configuration))
        {
          read = (codes, restored)
        }
        done.signal()
      }
      if now { body() } else { Thread.detachNewThread(body) }
    }

    func take() -> (IdText, CardsHeldFile.Restored)? {
      done.wait()
      return read
    }
  }

  /// What the cards' held file must have been made by: this build, with this public URL (a
  /// summary holds it).
  private static func heldMaker(_ configuration: Configuration) -> String {
    BuildIdentity.current + " " + configuration.publicURL
  }

  /// Keeps the cards as held for the next start, if the store keeps such things
  /// (`CardStorage.keepHeld`). Called as the store closes, once nothing else writes.
  public func keepHeld() throws {
    try storage.keepHeld {
      state.withLock { CardsHeldFile.write($0, map: map, maker: Self.heldMaker(configuration)) }
    }
  }

  public func addObserver(_ observer: any CardObserver) {
    observers.withLock { $0.append(observer) }
  }

  public func addGuard(_ fieldsGuard: any CardFieldsGuard) {
    guards.withLock { $0.append(fieldsGuard) }
  }

  /// The guards' refusal of the card's fields, if any; asked under the cards' lock.
  func claim(_ card: Card) -> CardError? {
    for fieldsGuard in guards.withLock({ $0 }) {
      if let error = fieldsGuard.claim(card: card.id, owner: card.ownerId, fields: card.fields) {
        return .invalid(error)
      }
    }
    return nil
  }

  // MARK: Reading

  /// A card by id or share code, as `viewer` may see it: its owner sees it always; anyone else
  /// only while it is active.
  /// Whether the card is on the map (its owner shows it there, it is active and located): then
  /// anyone may have found it there.
  public func isOnMap(_ id: Int64) -> Bool { map.contains(id) }

  /// Counts a look-up by share code or share URL for the account (none for a visitor signed in
  /// nowhere) and the address (`client`), or the refusal when either is at its limit.
  func countCodeRead(viewer: Int64?, client: String) -> CardError? {
    if let viewer, let wait = codeReads.take(["account:\(viewer)"]) {
      return .limited(
        LimitExceeded("at most \(codeReads.limit) cards by code an hour", retryAfter: wait))
    }
    guard let wait = codeReadsByAddress.take(["address:" + client]) else {
      newsShare.withLock { $0 }?(.codeRead(viewer: viewer, address: client))
      return nil
    }
    return .limited(
      LimitExceeded(
        "at most \(codeReadsByAddress.limit) cards by code an hour from your address",
        retryAfter: wait))
  }

  /// The card of an id or a share code, if the viewer may see that it exists: their own, or an
  /// active one (what they may read of it is `Wallets.card(_:readBy:client:)`'s rule).
  public func card(_ idOrCode: String, viewer: Int64) -> Card? {
    state.withLock { s in
      let id =
        Int64(idOrCode).flatMap { s.cards.contains($0) ? $0 : nil } ?? s.cards.id(code: idOrCode)
      return id.flatMap { s.cards[$0] }
    }.flatMap { card in card.ownerId == viewer || isActive(card) ? card : nil }
  }

  /// How many cards there are.
  public var count: Int { state.withLock { $0.byOwner.total } }

  public func cards(of owner: Int64) -> [Card] {
    state.withLock { s in s.byOwner[owner].compactMap { s.cards[$0] } }
  }

  public func isActive(_ card: Card) -> Bool {
    card.isActive(ownerIsPro: accounts.account(card.ownerId)?.isPro ?? false)
  }

  /// The share URL, while the card is active.
  public func url(of card: Card) -> String? {
    // One look-up of the owner for both (a map search asks this of every hit).
    guard let owner = accounts.account(card.ownerId), card.isActive(ownerIsPro: owner.isPro)
    else { return nil }
    return configuration.publicURL + card.path(username: owner.username)
  }

  /// Where a visitor makes a card of their own (what an inactive card's URL offers).
  public var createCardURL: String { configuration.publicURL + "/" }

  /// What `<public-url>/c/<username>[/<slug>]` shows `viewer` (nil: a visitor signed in
  /// nowhere) from the address `client`. A username can be guessed as a code can: each opening
  /// counts against the same limits (`countCodeRead`). Another's card kept off the map shows no
  /// location.
  public func open(
    username: String, slug: String?, viewer: Int64?, client: String
  ) -> Result<OpenedCard, CardError> {
    if let refused = countCodeRead(viewer: viewer, client: client) { return .failure(refused) }
    let opened = open(username: username, slug: slug)
    guard case .card(let card) = opened else { return .success(opened) }
    return .success(.card(card.shown(to: viewer)))
  }

  /// What `<public-url>/c/<username>[/<slug>]` shows, counting nothing.
  func open(username: String, slug: String?) -> OpenedCard {
    guard let owner = accounts.account(username: username) else { return .notFound }
    let cards = self.cards(of: owner.id)
    guard let slug else {
      if let primary = cards.first(where: \.isPrimary) { return .card(primary) }
      return state.withLock { $0.reserved.contains(owner.id) } ? .placeholder : .notFound
    }
    guard let card = cards.first(where: { $0.slug == slug }) else { return .notFound }
    // The primary card is shared at the account's own URL only.
    if card.isPrimary { return .card(card) }
    return owner.isPro ? .card(card) : .inactive
  }

  /// The map's index: its size, overflow, wear and rebuilds (for INFO and the benchmarks).
  public var mapStatistics: GeoIndex.Statistics { map.index.statistics }

  /// A card as held, for the map's hits.
  func held(_ id: Int64) -> Card? { state.withLock { $0.cards[id] } }

  /// A card by its share code, whoever may see it.
  func held(code: String) -> Card? {
    state.withLock { s in s.cards.id(code: code).flatMap { s.cards[$0] } }
  }

  // MARK: Writing

  public func create(owner: Int64, json: String, _ done: @escaping Done<Card>) {
    guard let account = accounts.account(owner) else { return done(.failure(.notFound)) }
    let fields: CardFields
    do { fields = try CardFields.parse(json, isPro: account.isPro) } catch {
      return done(.failure(.invalid(error)))
    }
    let made = state.withLock { s in newCard(owner: owner, account.isPro, fields, &s) }
    guard case .success(let (card, wasReserved)) = made else {
      if case .failure(let error) = made { done(.failure(error)) }
      return
    }
    place(card)
    let plan = configuration.plan(isPro: account.isPro)
    let write = storage.inserting(
      card, externalId: nil, takingReservedURL: wasReserved, plan: plan)
    commit([write], saving: [card.id], plan: plan) { [self] result in
      if case .failure(let error) = result { undo(card, reservedURL: wasReserved, error) }
      done(result.map { card })
    }
  }

  /// A new card of `owner` in `s`, within the plan's limit; and whether it took the reserved
  /// primary URL.
  func newCard(owner: Int64, _ isPro: Bool, _ fields: CardFields, _ s: inout State) -> Result<
    (Card, Bool), CardError
  > {
    var next = s.nextCard
    if let ids = storage.cardIDs {
      // This node's next id whose code no card made before cards-v4 has (a migrated store).
      repeat {
        guard let id = ids.next() else {
          return .failure(.tryAgain("this node is waiting for new card ids"))
        }
        next = id
      } while s.cards.id(code: codes.text(next)) != nil
    }
    let drawn = Self.newCard(
      after: next, codes, owner: owner, isPro: isPro, fields: fields, configuration,
      count: s.byOwner[owner].count, hasPrimary: s.withPrimary.contains(owner),
      codeTaken: { s.cards.id(code: $0) != nil },
      slugTaken: { s.cards.hasSlug($0, among: s.byOwner[owner]) })
    guard case .success(let card) = drawn else { return drawn.map { ($0, false) } }
    if let refused = claim(card) { return .failure(refused) }
    s.nextCard = card.id + 1
    Self.add(card, to: &s)
    s.pending?[card.id, default: 0] += 1
    // A new primary card takes the reserved URL.
    let wasReserved = card.isPrimary && s.reserved.remove(owner) != nil
    return .success((card, wasReserved))
  }

  /// The rules of a new card, wherever the cards are held (here, or the store itself for a
  /// bulk import, `CardBulkImport`): within the owner's plan limit (`count` cards already),
  /// the first id from `next` whose share code no card made before cards-v4 has
  /// (`IdText.firstFree`), a slug none of the owner's cards has, primary when the owner has no
  /// primary card.
  static func newCard(
    after next: Int64, _ codes: IdText, owner: Int64, isPro: Bool, fields: CardFields,
    _ configuration: Configuration, count: Int, hasPrimary: Bool,
    codeTaken: (String) throws -> Bool, slugTaken: (String) throws -> Bool
  ) rethrows -> Result<Card, CardError> {
    let limit = configuration.plan(isPro: isPro).cards
    guard count < limit else { return .failure(.limit(limit, pro: isPro)) }
    let (id, code) = try codes.firstFree(from: next, taken: codeTaken)
    var slug = slug()
    while try slugTaken(slug) { slug = Self.slug() }
    let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
    return .success(
      Card(
        id: id, ownerId: owner, code: code, slug: slug, isPrimary: !hasPrimary, fields: fields,
        createdAt: now, updatedAt: now))
  }

  /// Applies an RFC 7396 merge patch to the owner's card.
  public func update(owner: Int64, id: Int64, patch: String, _ done: @escaping Done<Card>) {
    let isPro = accounts.account(owner)?.isPro ?? false
    let updated = state.withLock { s -> Result<Change, CardError> in
      guard var card = s.cards[id] else { return .failure(.notFound) }
      guard card.ownerId == owner else { return .failure(.noPermission) }
      do throws(CardFieldError) {
        card.fields = try card.fields.merging(patch, isPro: isPro)
      } catch {
        return .failure(.invalid(error))
      }
      if let refused = claim(card) { return .failure(refused) }
      card.updatedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
      let before = s.cards[id]!
      s.save(card)
      return .success((before, card))
    }
    finish(updated, done)
  }

  /// Sets the card's location (`source` gps, from the phone, unless said otherwise).
  public func locate(
    owner: Int64, id: Int64, longitude: Double, latitude: Double,
    source: CardLocation.Source = .gps, _ done: @escaping Done<Card>
  ) {
    guard longitude.isFinite, latitude.isFinite, abs(longitude) <= 180,
      abs(latitude) <= 85.05112878
    else {
      return done(
        .failure(
          .invalid(
            CardFieldError(field: "location", reason: "longitude or latitude out of range"))))
    }
    let updated = state.withLock { s -> Result<Change, CardError> in
      guard let before = s.cards[id] else { return .failure(.notFound) }
      guard before.ownerId == owner else { return .failure(.noPermission) }
      var card = before
      card.fields.location = CardLocation(longitude: longitude, latitude: latitude, source: source)
      card.updatedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
      s.save(card)
      return .success((before, card))
    }
    finish(updated, done)
  }

  /// Makes one of the owner's cards its primary card (and shared at its own URL).
  public func makePrimary(owner: Int64, id: Int64, _ done: @escaping Done<Card>) {
    typealias Made = (changes: [Change], hadPrimary: Bool, wasReserved: Bool)
    let made = state.withLock { s -> Result<Made, CardError> in
      guard let card = s.cards[id] else { return .failure(.notFound) }
      guard card.ownerId == owner else { return .failure(.noPermission) }
      var changes: [Change] = []
      for other in s.byOwner[owner] {
        guard var card = s.cards[other], card.isPrimary != (other == id) else { continue }
        let before = card
        card.isPrimary = other == id
        s.save(card)
        changes.append((before, card))
      }
      let hadPrimary = !s.withPrimary.insert(owner)
      return .success((changes, hadPrimary, s.reserved.remove(owner) != nil))
    }
    guard case .success(let (changes, hadPrimary, wasReserved)) = made else {
      if case .failure(let error) = made { done(.failure(error)) }
      return
    }
    let cards = changes.map(\.after)
    for card in cards { place(card) }
    let told = cards.flatMap { card in tell { $0.cardChanged(card) } }
    commit([storage.settingPrimary(cards, of: owner)] + told, saving: cards.map(\.id)) {
      [self] result in
      if case .failure(.tryAgain) = result {
        for change in changes { restore(change.before, over: change.after) }
        state.withLock { s in
          let primary = s.byOwner[owner].contains { s.cards[$0]?.isPrimary == true }
          if !hadPrimary, !primary { s.withPrimary.remove(owner) }
          if wasReserved, !primary { s.reserved.insert(owner) }
        }
      }
      done(result.map { state.withLock { $0.cards[id]! } })
    }
  }

  /// Deletes the owner's card; a primary card's URL is reserved for the owner's next card.
  public func delete(owner: Int64, id: Int64, _ done: @escaping Done<Void>) {
    let removed = state.withLock { s -> Result<Card, CardError> in
      guard let card = s.cards[id] else { return .failure(.notFound) }
      guard card.ownerId == owner else { return .failure(.noPermission) }
      Self.remove(card, from: &s)
      if card.isPrimary { s.reserved.insert(owner) }
      return .success(card)
    }
    guard case .success(let card) = removed else {
      if case .failure(let error) = removed { done(.failure(error)) }
      return
    }
    map.remove(id)
    let told = tell { $0.cardDeleted(card) }
    commit([storage.deleting(card)] + told, done)
  }

  // MARK: The map

  /// Shows the card on the map with its summary if it may be there (its owner shows it, it is
  /// active, it has a location), or hides it.
  func place(_ card: Card) {
    map.place(
      card,
      summary: CardSummary.onMap(
        card, owner: accounts.account(card.ownerId), publicURL: configuration.publicURL))
  }

  // MARK: Helpers

  /// A change of one card in memory: the card before it and after.
  typealias Change = (before: Card, after: Card)

  func finish(_ updated: Result<Change, CardError>, _ done: @escaping Done<Card>) {
    switch updated {
    case .failure(let error): done(.failure(error))
    case .success(let (before, card)):
      place(card)
      let told = tell { $0.cardChanged(card) }
      commit([storage.saving(card)] + told, saving: [card.id]) { [self] result in
        if case .failure(.tryAgain) = result { restore(before, over: card) }
        done(result.map { card })
      }
    }
  }

  /// A change the store refused with nothing written: memory takes the card back as it was
  /// (the map, the wallets' text, the uploads it names), unless a later change came since.
  func restore(_ before: Card, over after: Card) {
    let restored = state.withLock { s -> Bool in
      guard s.cards[after.id] == after else { return false }
      s.cards[after.id] = before
      return true
    }
    guard restored else { return }
    place(before)
    // The observers' writes (notices of the change) are dropped: nothing changed.
    _ = tell { $0.cardChanged(before) }
  }

  /// Commits `writes`, which save the cards `saving` (this node's writes of them, counted until
  /// the feed brings them back: `State.pending`).
  /// A new card's commit says `plan`.
  func commit(
    _ writes: [any DurableWrite], saving ids: [Int64] = [], plan: CardPlan? = nil,
    _ done: @escaping Done<Void>
  ) {
    storage.commit(writes) { [self] result in
      if case .failure(let error) = result, !ids.isEmpty {
        // A commit that went through after all is counted by its own feed row instead.
        unlessCommittedLater(error) { [self] in
          state.withLock { s in for id in ids { s.seen(ownWriteOf: id) } }
        }
      }
      done(result.mapError { CardError(storeFailure: $0, plan: plan) })
    }
  }

  /// A new card the shared store refused (another node's raced it, or nothing was written): it
  /// was never made. One whose commit's outcome is unknown stays: it may be in the database,
  /// and its own feed row would not bring it back.
  func undo(_ card: Card, reservedURL: Bool, _ error: CardError) {
    switch error {
    case .limit, .tryAgain: break
    default: return
    }
    guard storage.cardIDs != nil else { return }
    let removed = state.withLock { s -> Bool in
      guard s.cards.contains(card.id) else { return false }
      Self.remove(card, from: &s)
      if reservedURL { s.reserved.insert(card.ownerId) }
      return true
    }
    if removed { map.remove(card.id) }
  }

  /// The observers' writes for a change, to go into its transaction.
  func tell(_ what: (any CardObserver) -> [any DurableWrite]) -> [any DurableWrite] {
    observers.withLock { $0 }.flatMap(what)
  }

  static func add(_ card: Card, to s: inout State) {
    s.cards[card.id] = card
    s.byOwner.add(card.id, to: card.ownerId)
    if card.isPrimary { s.withPrimary.insert(card.ownerId) }
  }

  static func remove(_ card: Card, from s: inout State) {
    s.cards[card.id] = nil
    s.byOwner.remove(card.id, from: card.ownerId)
    s.forgetExternalId(of: card.id, owner: card.ownerId)
    if card.isPrimary { s.withPrimary.remove(card.ownerId) }
  }

  /// Every card of the account leaves memory and the map; returns them.
  func forget(owner: Int64) -> [Card] {
    let gone = state.withLock { s -> [Card] in
      let cards = s.byOwner[owner].compactMap { s.cards[$0] }
      for card in cards { Self.remove(card, from: &s) }
      s.reserved.remove(owner)
      return cards
    }
    for card in gone { map.remove(card.id) }
    return gone
  }

  /// Share codes: 8 characters without look-alikes (no 0/o, 1/l/i), what a QR code or link
  /// carries, made from the card's id under the store's key for them.
  public static func codes(key: Data) -> IdText {
    IdText(key: key, alphabet: "abcdefghjkmnpqrstuvwxyz23456789", length: 8)
  }

  static func slug() -> String { RandomText.draw(3, from: slugAlphabet) }

  private static let slugAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

  /// Told by the accounts of deletions and Pro changes.
  private struct Observer: AccountObserver {
    let cards: Cards

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      let gone = cards.forget(owner: id)
      let told = gone.flatMap { card in cards.tell { $0.cardDeleted(card) } }
      return [cards.storage.deletingAll(of: id)] + told
    }

    /// Non-primary cards turn inactive or active again: only the map changes (activity is
    /// derived from the owner's plan, not stored).
    func proChanged(_ account: Account) -> [any DurableWrite] {
      for card in cards.cards(of: account.id) {
        cards.map.place(
          card,
          summary: CardSummary.onMap(
            card, owner: account, publicURL: cards.configuration.publicURL))
      }
      return []
    }
  }
}
