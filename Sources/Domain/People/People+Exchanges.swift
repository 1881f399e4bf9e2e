import Accounts
import Cards
import DomainSupport
import Durability
import Foundation
import Geocoding
import Geodesy

/// Two people met: each gave the other their primary card.
public struct Exchange: Sendable {
  public let id: Int64
  /// account a < account b; card a is the card a gave (b's wallet holds it).
  public let accountA: Int64
  public let accountB: Int64
  public let cardA: Int64
  public let cardB: Int64
  public let date: Date
  /// The midpoint of their cells to 3 decimals (about 100 m), when either had a presence.
  public let longitude: Double?
  public let latitude: Double?
  public let place: String?

  public init(
    id: Int64, accountA: Int64, accountB: Int64, cardA: Int64, cardB: Int64, date: Date,
    longitude: Double?, latitude: Double?, place: String?
  ) {
    self.id = id
    self.accountA = accountA
    self.accountB = accountB
    self.cardA = cardA
    self.cardB = cardB
    self.date = date
    self.longitude = longitude
    self.latitude = latitude
    self.place = place
  }
}

/// A request waiting for the other side, as one side sees it.
public struct ExchangeRequest: Sendable {
  public let accountId: Int64
  /// Made by the viewer (else made to it).
  public let outgoing: Bool
  public let date: Date
  /// The other side's primary card, while there is one.
  public let card: Card?
}

/// What EXCHANGE.REQUEST did.
public enum ExchangeOutcome: Sendable {
  case pending(Date)
  case exchanged(Exchange)
}

struct ExchangeState {
  /// Requests by who made them, to whom, when (seconds since 1970).
  var requests: [Int64: [Int64: Double]] = [:]
  var incoming: [Int64: Set<Int64>] = [:]
  var exchanged: [Int64: Set<Int64>] = [:]
  var nextExchange: Int64 = 1
  /// On a store many nodes share: the requests this node is writing (`writing`), until the
  /// feed brings its rows back or the writes fail. Nil: the store is this node's alone.
  var pending: [RequestKey: PendingRequest]?

  struct RequestKey: Hashable {
    let from: Int64
    let to: Int64
  }

  /// This node's writes of one request not settled yet, and the request as the database last
  /// had it, as far as this node knows (before the first write, then each row of the feed).
  struct PendingRequest {
    var writes: Int
    var stored: Double?
  }

  func requested(_ from: Int64, _ to: Int64) -> Double? { requests[from]?[to] }

  mutating func removeRequest(_ from: Int64, _ to: Int64) {
    requests[from]?[to] = nil
    if requests[from]?.isEmpty == true { requests[from] = nil }
    incoming[to]?.remove(from)
    if incoming[to]?.isEmpty == true { incoming[to] = nil }
  }

  mutating func setRequest(_ from: Int64, _ to: Int64, at: Double) {
    requests[from, default: [:]][to] = at
    incoming[to, default: []].insert(from)
  }

  mutating func pair(_ a: Int64, _ b: Int64, exchanged: Bool) {
    if exchanged {
      self.exchanged[a, default: []].insert(b)
      self.exchanged[b, default: []].insert(a)
    } else {
      self.exchanged[a]?.remove(b)
      if self.exchanged[a]?.isEmpty == true { self.exchanged[a] = nil }
      self.exchanged[b]?.remove(a)
      if self.exchanged[b]?.isEmpty == true { self.exchanged[b] = nil }
    }
  }

  mutating func set(_ from: Int64, _ to: Int64, at: Double?) {
    if let at { setRequest(from, to, at: at) } else { removeRequest(from, to) }
  }

  /// Counts a write of the request (from, to), before memory changes it, when nodes share
  /// the store.
  mutating func writing(_ from: Int64, _ to: Int64) {
    guard pending != nil else { return }
    let key = RequestKey(from: from, to: to)
    let stored = requested(from, to)
    pending?[key, default: PendingRequest(writes: 0, stored: stored)].writes += 1
  }

  /// A request's state from the feed, in commit order. While this node writes the request,
  /// memory is newer than another node's row, and only the last of this node's own rows sets
  /// it: its state is then the database's. So an older row never undoes a newer local change,
  /// and every node ends where the database is.
  mutating func follow(_ from: Int64, _ to: Int64, at: Double?, own: Bool) {
    let key = RequestKey(from: from, to: to)
    guard var waiting = pending?[key] else { return set(from, to, at: at) }
    waiting.stored = at
    if own { waiting.writes -= 1 }
    pending?[key] = waiting.writes > 0 ? waiting : nil
    if waiting.writes == 0 { set(from, to, at: at) }
  }

  /// A write of the request failed, so the feed will not bring it: once none is left, memory
  /// takes the database's state.
  mutating func failed(_ from: Int64, _ to: Int64) {
    let key = RequestKey(from: from, to: to)
    guard var waiting = pending?[key] else { return }
    waiting.writes -= 1
    pending?[key] = waiting.writes > 0 ? waiting : nil
    if waiting.writes == 0 { set(from, to, at: waiting.stored) }
  }

  /// Forgets a deleted account's requests, both ways, and its exchanges.
  mutating func forget(_ account: Int64) {
    for to in requests[account]?.keys.map({ $0 }) ?? [] { removeRequest(account, to) }
    for from in incoming[account] ?? [] { removeRequest(from, account) }
    for other in exchanged[account] ?? [] { pair(account, other, exchanged: false) }
    // Writes of its requests fail, or their rows came before its end's.
    pending = pending?.filter { $0.key.from != account && $0.key.to != account }
  }
}

extension People {
  public typealias Done<T> = @Sendable (Result<T, PeopleError>) -> Void

  static func load(_ storage: any ExchangeStorage) throws -> ExchangeState {
    let (requests, pairs, nextId) = try storage.load()
    var s = ExchangeState()
    s.nextExchange = nextId
    if storage.exchangeIDs != nil { s.pending = [:] }
    for (a, b) in pairs { s.pair(a, b, exchanged: true) }
    for request in requests { s.setRequest(request.from, request.to, at: request.requestedAt) }
    return s
  }

  /// Asks to exchange cards with `other`. A first request needs the caller's live presence and
  /// `other` findable within the search's greatest radius; it stays pending until `other` asks
  /// too (then from wherever they are). Asking again answers the pending request.
  public func request(account: Int64, other: Int64, _ done: @escaping Done<ExchangeOutcome>) {
    guard other != account else {
      return done(.failure(.invalid(field: "accountId", reason: "that is you")))
    }
    guard let mine = primaryCard(of: account) else { return done(.failure(.noPrimaryCard)) }
    let theirs = primaryCard(of: other)
    let now = clock()
    if let error = limited(account, now) { return done(.failure(error)) }
    let me = presences.presence(account, now: now)
    let them = presences.findable([other], now: now).first?.1
    let visible =
      me.flatMap { me in
        them.map {
          grid.distance(me, $0) <= configuration.maxRadius
        }
      } ?? false
    enum Step {
      case refused(PeopleError)
      case pending(Double, new: Bool)
      /// The other side's request, made at `requested`, answered by exchange `id`.
      case complete(id: Int64, requested: Double)
    }
    let step = exchangeState.withLock { s -> Step in
      if s.exchanged[account]?.contains(other) == true { return .refused(.alreadyExchanged) }
      if let requested = s.requested(other, account) {
        guard theirs != nil else { return .refused(.notNearby) }
        guard let id = nextExchange(&s) else {
          return .refused(.tryAgain("this node is waiting for new exchange ids"))
        }
        s.writing(account, other)
        s.writing(other, account)
        s.removeRequest(other, account)
        s.pair(account, other, exchanged: true)
        return .complete(id: id, requested: requested)
      }
      if let at = s.requested(account, other) { return .pending(at, new: false) }
      guard me != nil else { return .refused(.noPresence) }
      guard visible, theirs != nil else { return .refused(.notNearby) }
      s.writing(account, other)
      s.setRequest(account, other, at: now)
      return .pending(now, new: true)
    }
    switch step {
    case .refused(let error): done(.failure(error))
    case .pending(let at, new: false): done(.success(.pending(Date(timeIntervalSince1970: at))))
    case .pending(let at, new: true):
      let notCommitted = { @Sendable [self] in
        exchangeState.withLock { $0.failed(account, other) }
      }
      commit([syncRequest(account, other, new: true)], notCommitted: notCommitted) {
        [self] result in
        if case .failure(let error) = result, error.nothingWritten {
          exchangeState.withLock { s in
            // The request is not made (unless memory changed it since).
            if s.requested(account, other) == at { s.removeRequest(account, other) }
          }
        }
        done(result.map { .pending(Date(timeIntervalSince1970: at)) })
      }
    case .complete(let id, let requested):
      guard let theirs else { return done(.failure(.notNearby)) }
      // Nothing written: the other side's request waits again, as the store still has it.
      let undo = { @Sendable [self] in
        exchangeState.withLock { s in
          s.pair(account, other, exchanged: false)
          s.setRequest(other, account, at: requested)
        }
      }
      let cells = [me, presences.presence(other, now: now)].compactMap { $0 }
      let point =
        cells.count == 2
        ? PresenceGrid.midpoint(
          (cells[0].longitude, cells[0].latitude), (cells[1].longitude, cells[1].latitude))
        : cells.first.map {
          PresenceGrid.midpoint(($0.longitude, $0.latitude), ($0.longitude, $0.latitude))
        }
      let (a, b) = account < other ? (mine, theirs) : (theirs, mine)
      let made = { @Sendable (place: String?) in
        Exchange(
          id: id, accountA: a.ownerId, accountB: b.ownerId, cardA: a.id, cardB: b.id,
          date: Date(timeIntervalSince1970: now), longitude: point?.longitude,
          latitude: point?.latitude, place: place)
      }
      guard let point, let geocoder else { return complete(made(nil), a, b, undo, done) }
      // Off Swift's cooperative pool, which blocking code elsewhere in the process may hold.
      Task(executorPreference: DispatchTaskExecutor.shared) { [self] in
        let place = try? await geocoder.reverse(lon: point.longitude, lat: point.latitude)
        complete(made(place?.label), a, b, undo, done)
      }
    }
  }

  /// Writes the exchange, both wallets' new cards and the end of both requests in one
  /// transaction; once it is durable, both sides hear it on `account:<id>`.
  private func complete(
    _ e: Exchange, _ a: Card, _ b: Card, _ undo: @escaping @Sendable () -> Void,
    _ done: @escaping Done<ExchangeOutcome>
  ) {
    let told = AfterCommit { [self] in
      for viewer in [e.accountA, e.accountB] {
        var message = JSONText()
        message.add("event", "exchange")
        message.add("exchange", object: PeopleJSON.exchange(e, viewer: viewer, cards: cards))
        notifier.publish(message.text, to: "account:\(viewer)")
      }
    }
    let writes =
      [
        storage.inserting(e), syncRequest(e.accountA, e.accountB),
        syncRequest(e.accountB, e.accountA), told,
      ] + wallets.adding(b, to: e.accountA, at: e.date)
      + wallets.adding(a, to: e.accountB, at: e.date)
    let notCommitted = { @Sendable [self] in
      exchangeState.withLock { s in
        s.failed(e.accountA, e.accountB)
        s.failed(e.accountB, e.accountA)
      }
    }
    commit(writes, notCommitted: notCommitted) { [self] result in
      if case .failure(.tryAgain) = result {
        undo()
        wallets.undoAdding(b, to: e.accountA, at: e.date)
        wallets.undoAdding(a, to: e.accountB, at: e.date)
      }
      done(result.map { .exchanged(e) })
    }
  }

  /// The id of a new exchange: the store's next when nodes share it, else one after the last.
  private func nextExchange(_ s: inout ExchangeState) -> Int64? {
    if let ids = storage.exchangeIDs { return ids.next() }
    defer { s.nextExchange += 1 }
    return s.nextExchange
  }

  /// The requests the account made and those made to it, newest first. One beside an
  /// exchange of the pair is none: two nodes can leave both when they write at the same moment
  /// (`ExchangeStorage.syncingRequest`).
  public func pending(account: Int64) -> [ExchangeRequest] {
    let (outgoing, incoming) = exchangeState.withLock { s in
      let exchanged = s.exchanged[account] ?? []
      return (
        (s.requests[account] ?? [:]).filter { !exchanged.contains($0.key) }
          .map { ($0.key, $0.value) },
        (s.incoming[account] ?? []).subtracting(exchanged).compactMap { from in
          s.requested(from, account).map { (from, $0) }
        }
      )
    }
    let all =
      outgoing.map { ($0.0, true, $0.1) } + incoming.map { ($0.0, false, $0.1) }
    return all.sorted { ($0.2, $0.0) > ($1.2, $1.0) }.map {
      ExchangeRequest(
        accountId: $0.0, outgoing: $0.1, date: Date(timeIntervalSince1970: $0.2),
        card: primaryCard(of: $0.0))
    }
  }

  public static let maxListCount = 1000

  /// The account's exchanges, newest first, read from the store.
  public func exchanges(account: Int64, _ done: @escaping Done<[Exchange]>) {
    storage.exchanges(of: account, limit: Self.maxListCount) { result in
      done(result.mapError { .unavailable("\($0)") })
    }
  }

  /// A write that makes the store's request (from, to) what memory holds when it applies, so
  /// that racing writes for one pair leave the latest state whatever order they commit in.
  /// A `new` request is its command's only write.
  func syncRequest(_ from: Int64, _ to: Int64, new: Bool = false) -> any DurableWrite {
    storage.syncingRequest(from: from, to: to, new: new) { [self] in
      exchangeState.withLock { $0.requested(from, to) }
    }
  }

  /// Commits `writes`; a failure the store says wrote nothing is `tryAgain` (retryable); a
  /// pair another node exchanged meanwhile is `alreadyExchanged`, as memory already says.
  /// `notCommitted` runs first on a failure: at once, or once the store learns that a commit
  /// whose outcome it could not tell did not go through (`unlessCommittedLater`).
  func commit(
    _ writes: [any DurableWrite], notCommitted: @escaping @Sendable () -> Void = {},
    _ done: @escaping Done<Void>
  ) {
    storage.commit(writes) { result in
      if case .failure(let error) = result { unlessCommittedLater(error, notCommitted) }
      done(
        result.mapError { error in
          switch error {
          case is ExchangeRaced: .alreadyExchanged
          case let failure as StoreFailure where failure.nothingWritten:
            .tryAgain("write not persisted, nothing written: \(error)")
          default: .notPersisted("\(error)")
          }
        })
    }
  }

  /// Forgets a deleted account's presence, requests and exchanges.
  struct Observer: AccountObserver {
    let people: People

    func accountDeleted(_ id: Int64) -> [any DurableWrite] {
      people.presences.clear(id, now: people.clock())
      people.exchangeState.withLock { $0.forget(id) }
      return [people.storage.deletingAll(of: id)]
    }

    func proChanged(_ account: Account) -> [any DurableWrite] { [] }
  }
}

extension PresenceGrid {
  func distance(_ a: Presences.Presence, _ b: Presences.Presence) -> Double {
    Sphere.earth.distance(
      longitude: a.longitude, latitude: a.latitude, longitude: b.longitude, latitude: b.latitude)
  }
}
