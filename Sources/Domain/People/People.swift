import Accounts
import Cards
import Crypto
import DomainSupport
import Durability
import Foundation
import Geocoding
import RateLimits
import SpatialIndex
import Synchronization

/// numo's people nearby and their exchanges of cards. Presences are live locations that expire,
/// held in memory only (`Presences`), snapped to ~100 m cells; a search answers findable people
/// near the caller's own presence with their primary cards and distances rounded to 100 m,
/// never coordinates. Two people who each ask to exchange get each other's primary card in
/// their wallets, with when and roughly where they met (`People+Exchanges`). Exchanges and
/// pending requests are rows in the store, written through its group commit and answered once
/// durable. Knows nothing of RESP.
public final class People: Sendable {
  public struct Configuration: Sendable {
    /// A presence's lifetime when PRESENCE.SET gives none, and the longest it may ask.
    public var defaultTTL: Double = 600
    public var maxTTL: Double = 86_400
    public var maxRadius: Double = 50_000
    public var defaultCount = 20
    public var maxCount = 100
    /// PEOPLE.NEARBY searches and EXCHANGE.REQUESTs (each may tell whether someone is near) an
    /// account may run a minute, together; nil: no limit (benchmarks).
    public var searchesPerMinute: Int? = 30
    /// The grid presences snap to, in metres.
    public var cell: Double = 100
    /// How far a shown distance may be moved, in metres, before it is rounded (`DistanceBlur`).
    public var distanceSpread: Double = 250
    /// Distinct cells one account, and one address, may search from in an hour (0: no limit):
    /// each is another ring to trilaterate with.
    public var searchCellsPerAccount = 10
    public var searchCellsPerAddress = 30

    public init() {}
  }

  /// Someone a search found: their primary card and how far they are, rounded.
  public struct Nearby: Sendable {
    public let accountId: Int64
    public let card: Card
    /// Metres, moved by up to `distanceSpread` and rounded to 100, at least 100.
    public let distance: Int
  }

  /// What PRESENCE.SET set.
  public struct PresenceState: Sendable {
    public let findable: Bool
    public let expiresAt: Date
  }

  let storage: any ExchangeStorage
  let cards: Cards
  let wallets: Wallets
  let notifier: any Notifier
  let geocoder: (any Geocoder)?
  public let configuration: Configuration
  let grid: PresenceGrid
  let presences: Presences
  let exchangeState: Mutex<ExchangeState>
  /// The account's PEOPLE.NEARBY and EXCHANGE.REQUEST calls in the last minute.
  let searches: KeyedLimit
  let blur: DistanceBlur
  let searchCells: DistinctLimit
  let searchCellsByAddress: DistinctLimit
  let newsShare = Mutex<(@Sendable (PeopleNews) -> Void)?>(nil)

  public init(
    storage: any ExchangeStorage, accounts: Accounts, cards: Cards, wallets: Wallets,
    notifier: any Notifier, configuration: Configuration = .init()
  ) throws {
    self.storage = storage
    self.cards = cards
    self.wallets = wallets
    self.notifier = notifier
    self.geocoder = cards.configuration.geocoder
    self.configuration = configuration
    grid = PresenceGrid(metres: configuration.cell)
    blur = DistanceBlur(
      spread: configuration.distanceSpread, key: SymmetricKey(data: try storage.distanceKey()))
    searches = KeyedLimit(configuration.searchesPerMinute ?? 0, per: 60)
    searchCells = DistinctLimit(configuration.searchCellsPerAccount, per: 3_600)
    searchCellsByAddress = DistinctLimit(configuration.searchCellsPerAddress, per: 3_600)
    presences = Presences(now: Date().timeIntervalSince1970)
    exchangeState = Mutex(try Self.load(storage))
    accounts.addObserver(Observer(people: self))
  }

  /// Seconds since 1970.
  func clock() -> Double { Date().timeIntervalSince1970 }

  // MARK: Presence

  /// Sets the account's live location (snapped to its cell at once), findable or not, for
  /// `ttl` seconds (the default when nil).
  public func setPresence(
    account: Int64, longitude: Double, latitude: Double, findable: Bool, ttl: Double?
  ) -> Result<PresenceState, PeopleError> {
    guard longitude.isFinite, latitude.isFinite, abs(longitude) <= 180,
      abs(latitude) <= 85.05112878
    else {
      return .failure(.invalid(field: "location", reason: "longitude or latitude out of range"))
    }
    let ttl = ttl ?? configuration.defaultTTL
    guard ttl.isFinite, ttl >= 1, ttl <= configuration.maxTTL else {
      return .failure(
        .invalid(field: "ttl", reason: "must be 1 to \(Int(configuration.maxTTL)) seconds"))
    }
    let now = clock()
    let cell = grid.snap(longitude: longitude, latitude: latitude)
    let presence = Presences.Presence(
      longitude: cell.longitude, latitude: cell.latitude, findable: findable, expires: now + ttl,
      setHere: true)
    guard presences.set(account, presence, now: now) else {
      return .failure(.invalid(field: "account", reason: "cannot be placed"))
    }
    share(
      .presence(
        account: account, longitude: presence.longitude, latitude: presence.latitude,
        findable: findable, expires: presence.expires))
    return .success(
      PresenceState(findable: findable, expiresAt: Date(timeIntervalSince1970: now + ttl)))
  }

  /// Whether the account had a live presence.
  public func clearPresence(account: Int64) -> Bool {
    defer { share(.cleared(account: account)) }
    return presences.clear(account, now: clock())
  }

  /// Live presences, findable or not.
  public var presenceCount: Int { presences.count }

  // MARK: Nearby

  /// Findable people within `radius` metres of the caller's live presence, nearest first, at
  /// most `count`: never the caller, anyone unfindable or expired, anyone the caller has
  /// exchanged with, or anyone without a primary card.
  /// The radius is compared with the distance as shown, never the exact one, and one account
  /// (and one address, `client`) searches from at most `searchCellsPerAccount` (and
  /// `searchCellsPerAddress`) cells an hour.
  public func nearby(
    account: Int64, client: String, radius: Double, count: Int
  ) -> Result<[Nearby], PeopleError> {
    guard radius.isFinite, radius > 0, radius <= configuration.maxRadius else {
      return .failure(
        .invalid(
          field: "radius",
          reason: "must be more than 0 and at most \(Int(configuration.maxRadius)) m"))
    }
    let now = clock()
    if let error = limited(account, now) { return .failure(error) }
    guard let me = presences.presence(account, now: now) else { return .failure(.noPresence) }
    let cell = "\(me.longitude) \(me.latitude)"
    let byAccount = ["account:\(account)"]
    let byAddress = ["address:" + client]
    if let wait = searchCells.take(cell, on: byAccount, now: now)
      ?? searchCellsByAddress.take(cell, on: byAddress, now: now)
    {
      return .failure(
        .limited(
          LimitExceeded(
            "PEOPLE.NEARBY from at most \(searchCells.limit) places an hour", retryAfter: wait)))
    }
    share(.searchCell(cell, keys: byAccount, byAddress: false))
    share(.searchCell(cell, keys: byAddress, byAddress: true))
    let excluded = exchangeState.withLock { $0.exchanged[account] ?? [] }
    return .success(near(me, of: account, radius, count, excluding: excluded, now))
  }

  private func near(
    _ me: Presences.Presence, of account: Int64, _ radius: Double, _ count: Int,
    excluding excluded: Set<Int64>, _ now: Double
  ) -> [Nearby] {
    // Enough hits for the page once the caller and those left out are skipped; more if too
    // many of them had no card or had just expired.
    var k = count + 1 + excluded.count
    // Anyone whose shown distance may be within the radius.
    let reach = radius + configuration.distanceSpread + 50
    while true {
      let hits = presences.searchers.withSearcher { searcher in
        searcher.nearest(
          longitude: me.longitude, latitude: me.latitude, k: k, within: reach
        ).map { (Int64($0.id), $0.distance) }
      }
      let candidates = hits.filter { $0.0 != account && !excluded.contains($0.0) }
      let live = presences.findable(candidates.map(\.0), now: now)
      let cells = Dictionary(live.map { ($0.0, ($0.1.longitude, $0.1.latitude)) }) { a, _ in a }
      var found: [Nearby] = []
      for (id, distance) in candidates {
        guard let cell = cells[id] else { continue }
        let shown = blur.shown(
          distance, viewer: account, from: (me.longitude, me.latitude), target: id, to: cell)
        guard Double(shown) <= radius, let card = primaryCard(of: id) else { continue }
        found.append(Nearby(accountId: id, card: card, distance: shown))
      }
      // Moved distances reorder the nearest: sorted by what is shown, then by id. Done once
      // every hit within reach is seen, or nobody beyond the hits could be shown nearer.
      found.sort { ($0.distance, $0.accountId) < ($1.distance, $1.accountId) }
      let beyond = (hits.last?.1 ?? 0) - configuration.distanceSpread - 50
      if hits.count < k || (found.count >= count && Double(found[count - 1].distance) < beyond) {
        return Array(found.prefix(count))
      }
      k *= 2
    }
  }

  func primaryCard(of account: Int64) -> Card? {
    cards.cards(of: account).first { $0.isPrimary && cards.isActive($0) }
  }

  /// Refuses the account's search over the configured number in the last minute.
  func limited(_ account: Int64, _ now: Double) -> PeopleError? {
    guard searches.take(["\(account)"], now: now) != nil else {
      if searches.limit > 0 { share(.searched(account: account)) }
      return nil
    }
    return .rateLimited(perMinute: searches.limit)
  }
}
