import Accounts
import Cards
import DomainSupport
import Durability
import Foundation
import Geodesy
import MediaFiles
import RateLimits
import SpatialIndex
import Synchronization

/// Photo pins (GeoPic) and their rules: where a pin may be and how far it may be seen from,
/// who may change it, one vote per account, photos opened only from inside the circle. Held in
/// memory (loaded from the store at start), written through the store's group commit, answered
/// once durable. Knows nothing of RESP.
public final class Pins: Sendable {
  public struct Configuration: Sendable {
    /// The largest photo accepted (`--max-photo-bytes`).
    public var maxPhotoBytes = 10 * 1024 * 1024
    /// The fastest an opener may travel between two `PIN.OPEN`s, in km/h (`--pin-open-speed`).
    public var maximumOpenerSpeed = 300.0
    /// `PIN.OPEN`s one account may make in an hour (`--pin-opens-per-hour`, 0: no limit).
    public var opensPerHour = 120
    /// Pins one account may add in an hour (`--pins-per-hour`, 0: no limit).
    public var addsPerHour = 100

    public init() {}
  }

  /// A viewing circle's radius, in metres.
  public static let radii = 10.0...50_000.0

  struct State {
    var pins = IdTable<Pin>()
    var byOwner: [Int64: Set<Int64>] = [:]
    /// Each pin's votes by account (+1, -1), and the pins each account voted on.
    var votes: [Int64: [Int64: Int8]] = [:]
    var votedBy: [Int64: Set<Int64>] = [:]
    var nextPin: Int64 = 1
  }

  let storage: any PinStorage
  let accounts: Accounts
  /// The photos' bytes.
  let media: any MediaStore
  public let configuration: Configuration
  let state: Mutex<State>
  let map: PinMap
  let travel: OpenerTravel
  let opens: KeyedLimit
  let adds: KeyedLimit
  let newsShare = Mutex<(@Sendable (PinsNews) -> Void)?>(nil)
  public typealias Done<T> = @Sendable (Result<T, PinError>) -> Void

  /// Loads the pins and votes, then removes the photo files no pin names.
  public init(
    storage: any PinStorage, accounts: Accounts, media: any MediaStore,
    configuration: Configuration = .init()
  ) throws {
    self.storage = storage
    self.accounts = accounts
    self.media = media
    self.configuration = configuration
    travel = OpenerTravel(maximumSpeed: configuration.maximumOpenerSpeed / 3.6)
    opens = KeyedLimit(configuration.opensPerHour, per: 3_600)
    adds = KeyedLimit(configuration.addsPerHour, per: 3_600)
    let (pins, votes, nextId) = try storage.load()
    var s = State()
    s.nextPin = nextId
    for pin in pins { Self.add(pin, to: &s) }
    for vote in votes { Self.setVote(vote.vote, of: vote.account, on: vote.pin, &s) }
    var placed: [(pin: Pin, summary: [UInt8])] = []
    for id in s.byOwner.values.joined() {
      if let pin = s.pins[id] { placed.append((pin, Self.summary(pin, accounts))) }
    }
    map = PinMap(placed: placed)
    state = Mutex(s)
    sweepPhotos()
    accounts.addObserver(Observer(pins: self))
  }

  // MARK: Reading

  public func pin(_ id: Int64) -> Pin? { state.withLock { $0.pins[id] } }

  /// The pin's JSON as replies show it.
  public func summary(_ pin: Pin) -> [UInt8] { Self.summary(pin, accounts) }

  static func summary(_ pin: Pin, _ accounts: Accounts) -> [UInt8] {
    Array(pin.json(ownerName: accounts.account(pin.ownerId)?.username).text.utf8)
  }

  /// The account with this username, for `FILTER owner`.
  public func owner(username: String) -> Int64? { accounts.account(username: username)?.id }

  /// Every pin whose circle holds the point, nearest centre first (ties by id).
  public func at(longitude: Double, latitude: Double) -> Result<[PinHit], PinError> {
    guard Self.valid(longitude, latitude) else { return .failure(Self.badPoint) }
    let hits = map.searchers.withSearcher { searcher in
      searcher.circlesContaining(longitude: longitude, latitude: latitude)
        .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
    }
    return .success(map.pinHits(hits))
  }

  /// The best-scored pins whose centres are within `radius` metres of the point: by score,
  /// then nearest, then id.
  public func top(longitude: Double, latitude: Double, radius: Double, count: Int) -> Result<
    [PinHit], PinError
  > {
    guard Self.valid(longitude, latitude) else { return .failure(Self.badPoint) }
    guard radius.isFinite, radius >= 0 else {
      return .failure(.badQuery("radius cannot be negative"))
    }
    let hits = map.searchers.withSearcher { searcher in
      searcher.radius(longitude: longitude, latitude: latitude, radius: radius)
    }
    let scored = state.withLock { s in
      hits.map { (hit: $0, score: s.pins[Int64($0.id)]?.score ?? .min) }
    }
    let best = scored.sorted { a, b in
      (-a.score, a.hit.distance, a.hit.id) < (-b.score, b.hit.distance, b.hit.id)
    }.prefix(count).map(\.hit)
    return .success(map.pinHits(best))
  }

  /// Where a point stands against the pin's circle: nil inside it, or the metres to its edge,
  /// rounded up (at least 1). The distance is the index's, from the same point, so `PIN.AT`
  /// and `PIN.OPEN` never disagree.
  public static func outside(_ pin: Pin, longitude: Double, latitude: Double) -> Int? {
    let d = Sphere.earth.distances(fromLongitude: longitude, latitude: latitude)
      .distance(longitude: pin.longitude, latitude: pin.latitude)
    guard d > Double(Float(pin.radius)) else { return nil }
    return max(1, Int((d - pin.radius).rounded(.up)))
  }

  // MARK: Writing

  /// A new pin of `owner` at the point, seen from within `radius` metres, with `json`'s
  /// caption and time taken.
  public func add(
    owner: Int64, longitude: Double, latitude: Double, radius: Double, json: String,
    _ done: @escaping Done<Pin>
  ) {
    guard accounts.account(owner) != nil else { return done(.failure(.notFound)) }
    guard Self.valid(longitude, latitude) else { return done(.failure(Self.badPoint)) }
    guard radius.isFinite, Self.radii.contains(radius) else {
      return done(.failure(.invalid("radius", "must be 10 m to 50 km")))
    }
    let fields: PinFields
    do { fields = try PinFields.parse(json) } catch { return done(.failure(error)) }
    if let wait = adds.take(["account:\(owner)"]) {
      return done(
        .failure(.limited(LimitExceeded("at most \(adds.limit) pins an hour", retryAfter: wait))))
    }
    let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    share(.added(account: owner))
    state.withLock { s in
      let id: Int64
      if let ids = storage.pinIDs {
        guard let next = ids.next() else {
          return done(.failure(.tryAgain("this node is waiting for new pin ids")))
        }
        id = next
      } else {
        id = s.nextPin
      }
      guard id <= Int64(ItemID.max) else {
        return done(.failure(.invalid("pin", "no more pin ids")))
      }
      let pin = Pin(
        id: id, ownerId: owner, longitude: longitude, latitude: latitude,
        radius: radius.rounded(), caption: fields.caption, takenAt: fields.takenAt,
        createdAt: now)
      s.nextPin = id + 1
      Self.add(pin, to: &s)
      map.place(pin, summary: summary(pin))
      // Queued under the lock, so the store applies the pins' writes in the order memory did.
      commit([storage.inserting(pin)]) { done($0.map { pin }) }
    }
  }

  /// Deletes the owner's pin, its votes, and (once that is durable) its photo's file.
  public func delete(owner: Int64, id: Int64, _ done: @escaping Done<Void>) {
    state.withLock { s in
      guard let pin = s.pins[id] else { return done(.failure(.notFound)) }
      guard pin.ownerId == owner else { return done(.failure(.noPermission)) }
      Self.remove(pin, from: &s)
      map.remove(id)
      commit([storage.deleting(id), AfterCommit { [self] in removePhotos([pin.photo]) }], done)
    }
  }

  /// Sets, changes or withdraws (`vote` 0) the account's vote on the pin; answers the pin. An
  /// owner does not vote on their own pin.
  public func vote(account: Int64, id: Int64, vote: Int8, _ done: @escaping Done<Pin>) {
    state.withLock { s in
      guard let voted = s.pins[id] else { return done(.failure(.notFound)) }
      guard voted.ownerId != account else { return done(.failure(.ownVote)) }
      let before = s.votes[id]?[account] ?? 0
      Self.setVote(vote, of: account, on: id, &s)
      let pin = s.pins[id]!
      map.update(id, summary: summary(pin))
      commit([storage.voting(vote, by: account, on: id)]) { [self] result in
        if case .failure(.tryAgain) = result { unvote(vote, back: before, of: account, on: id) }
        done(result.map { pin })
      }
    }
  }

  /// A vote the store refused with nothing written: the account's vote goes back to what it
  /// was, unless it voted again since.
  private func unvote(_ vote: Int8, back before: Int8, of account: Int64, on id: Int64) {
    state.withLock { s in
      guard s.pins[id] != nil, (s.votes[id]?[account] ?? 0) == vote else { return }
      Self.setVote(before, of: account, on: id, &s)
      map.update(id, summary: summary(s.pins[id]!))
    }
  }

  // MARK: Helpers

  static func valid(_ longitude: Double, _ latitude: Double) -> Bool {
    (try? Coordinate.validated(longitude: longitude, latitude: latitude)) != nil
  }

  static let badPoint = PinError.invalid("location", "longitude -180..180, latitude -90..90")

  /// Commits `writes`; a failure the store says wrote nothing is `tryAgain` (retryable).
  func commit(_ writes: [any DurableWrite], _ done: @escaping Done<Void>) {
    storage.commit(writes) { result in
      done(
        result.mapError { error in
          guard let failure = error as? StoreFailure, failure.nothingWritten else {
            return .notPersisted("\(error)")
          }
          return .tryAgain("write not persisted, nothing written: \(error)")
        })
    }
  }

  static func add(_ pin: Pin, to s: inout State) {
    s.pins[pin.id] = pin
    s.byOwner[pin.ownerId, default: []].insert(pin.id)
  }

  /// The pin leaves memory with its votes.
  static func remove(_ pin: Pin, from s: inout State) {
    s.pins[pin.id] = nil
    s.byOwner[pin.ownerId]?.remove(pin.id)
    if s.byOwner[pin.ownerId]?.isEmpty == true { s.byOwner[pin.ownerId] = nil }
    for account in (s.votes.removeValue(forKey: pin.id) ?? [:]).keys {
      s.votedBy[account]?.remove(pin.id)
      if s.votedBy[account]?.isEmpty == true { s.votedBy[account] = nil }
    }
  }

  /// Replaces the account's vote on the pin (0: none), keeping the pin's counts.
  static func setVote(_ vote: Int8, of account: Int64, on id: Int64, _ s: inout State) {
    guard var pin = s.pins[id] else { return }
    let old = s.votes[id]?[account] ?? 0
    if old == 1 { pin.ups -= 1 } else if old == -1 { pin.downs -= 1 }
    if vote == 1 { pin.ups += 1 } else if vote == -1 { pin.downs += 1 }
    s.pins[id] = pin
    if vote == 0 {
      s.votes[id]?[account] = nil
      if s.votes[id]?.isEmpty == true { s.votes[id] = nil }
      s.votedBy[account]?.remove(id)
      if s.votedBy[account]?.isEmpty == true { s.votedBy[account] = nil }
    } else {
      s.votes[id, default: [:]][account] = vote
      s.votedBy[account, default: []].insert(id)
    }
  }

  /// Forgets the account's pins, its votes and its last opening position; its pins.
  @discardableResult
  func forget(_ account: Int64) -> [Pin] {
    travel.forget(account)
    return state.withLock { s -> [Pin] in
      let owned = (s.byOwner[account] ?? []).compactMap { s.pins[$0] }
      for pin in owned {
        Self.remove(pin, from: &s)
        map.remove(pin.id)
      }
      for pin in s.votedBy[account] ?? [] {
        Self.setVote(0, of: account, on: pin, &s)
        if let changed = s.pins[pin] { map.update(pin, summary: summary(changed)) }
      }
      return owned
    }
  }

  /// Told by the accounts of deletions: the account's pins go (their photos once that is
  /// durable), and its votes and its last opening position with them.
  private struct Observer: AccountObserver {
    let pins: Pins

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      let gone = pins.forget(id)
      return [
        pins.storage.deletingAll(of: id), AfterCommit { pins.removePhotos(gone.map(\.photo)) },
      ]
    }

    func proChanged(_ account: Account) -> [any DurableWrite] { [] }
  }
}
