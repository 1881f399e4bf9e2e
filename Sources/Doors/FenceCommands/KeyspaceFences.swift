import Commands
import Fences
import Foundation
import Geodesy
import HeapModule
import Keyspace
import NIOConcurrencyHelpers
import NIOCore
import Synchronization
import Webhooks

/// Fences over the keyspace's GEO keys. It is the keyspace's change log, in front of the real
/// one: every write's changes pass through it under the keyspace's lock, in the order they were
/// made, so each move is evaluated against the fences of its key with the member's last
/// position; the events are published once the write is durable, just before it is
/// acknowledged, and those for webhooks kept in their outbox before it is. What another node
/// wrote (over PostgreSQL) does not pass here.
public final class KeyspaceFences: ChangeLog, Sendable {
  /// A fence as set: where it looks and what it reports.
  struct Definition: Sendable {
    let name: String
    let db: Int
    let key: Bytes
    let area: FenceArea
    let detect: FenceDetect
    let repeats: Bool
    let channel: Bytes
    /// When it goes (`EX`), in ms since 1970; nil: it stays.
    let expires: Int64?
    /// `inside` only once a member has stayed this long (ms), once a stay (`DWELL`).
    let dwell: Int64?
    /// `enter` and `exit` held this long (ms), and dropped both if the other follows within it
    /// (`DEBOUNCE`): a member on the edge does not flap.
    let debounce: Int64?

    /// As kept in the log.
    var record: [String: Any] {
      var record: [String: Any] = [
        "name": name, "db": db, "key": Data(key).base64EncodedString(),
        "area": (try? JSONSerialization.jsonObject(with: area.description)) ?? [:],
        "detect": Int(detect.rawValue), "repeats": repeats,
        "channel": Data(channel).base64EncodedString(),
      ]
      if let expires { record["expires"] = expires }
      if let dwell { record["dwell"] = dwell }
      if let debounce { record["debounce"] = debounce }
      return record
    }

    init(
      name: String, db: Int, key: Bytes, area: FenceArea, detect: FenceDetect, repeats: Bool,
      channel: Bytes, expires: Int64? = nil, dwell: Int64? = nil, debounce: Int64? = nil
    ) {
      self.name = name
      self.db = db
      self.key = key
      self.area = area
      self.detect = detect
      self.repeats = repeats
      self.channel = channel
      self.expires = expires
      self.dwell = dwell
      self.debounce = debounce
    }

    init?(record: [String: Any]) {
      guard let name = record["name"] as? String, let db = record["db"] as? Int,
        let key = (record["key"] as? String).flatMap({ Data(base64Encoded: $0) }),
        let area = (record["area"] as? [String: Any]).flatMap(FenceArea.init(description:)),
        let detect = record["detect"] as? Int, let repeats = record["repeats"] as? Bool,
        let channel = (record["channel"] as? String).flatMap({ Data(base64Encoded: $0) })
      else { return nil }
      self.init(
        name: name, db: db, key: Array(key), area: area,
        detect: FenceDetect(rawValue: UInt8(truncatingIfNeeded: detect)), repeats: repeats,
        channel: Array(channel), expires: (record["expires"] as? NSNumber)?.int64Value,
        dwell: (record["dwell"] as? NSNumber)?.int64Value,
        debounce: (record["debounce"] as? NSNumber)?.int64Value)
    }
  }

  /// Now, in ms since 1970, as expiries are kept.
  public static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

  /// A fence set, and its number in its key's book.
  struct Fence: Sendable {
    let definition: Definition
    let id: FenceBook.FenceID
    /// When it was set, among the others: the log keeps them in this order.
    let order: Int
    var name: String { definition.name }
    var channel: Bytes { definition.channel }
  }

  /// One watched key: its book, and its members as the book's numbers with their last places.
  final class Watched: Sendable {
    let book = FenceBook()
    struct Members {
      var numbers: [Bytes: UInt64] = [:]
      var names: [UInt64: Bytes] = [:]
      var places: [UInt64: Coordinate] = [:]
      var next: UInt64 = 0

      mutating func number(_ member: Bytes) -> UInt64 {
        if let known = numbers[member] { return known }
        next += 1
        numbers[member] = next
        names[next] = member
        return next
      }

      mutating func forget(_ number: UInt64) {
        if let name = names.removeValue(forKey: number) { numbers[name] = nil }
        places[number] = nil
      }
    }
    let members = Mutex(Members())
    /// The fences on this key, by the book's number.
    let fences = Mutex<[FenceBook.FenceID: String]>([:])
  }

  struct Expiry: Comparable {
    let at: Int64
    let name: String
    static func < (a: Expiry, b: Expiry) -> Bool { (a.at, a.name) < (b.at, b.name) }
  }

  /// A member's events waiting on time, in one fence.
  struct Timed {
    /// An enter or exit held by `DEBOUNCE` until `heldUntil`, with where it happened.
    var held: (kind: FenceEvent.Kind, until: Int64, point: Coordinate?)?
    /// When `inside` is due (`DWELL`), unless it leaves first.
    var dwellUntil: Int64?
    /// The member's last place inside, for the dwell's event.
    var point: Coordinate?
    var isEmpty: Bool { held == nil && dwellUntil == nil }
  }

  struct WatchKey: Hashable {
    let db: Int
    let key: Bytes
  }

  private struct State {
    var fences: [String: Fence] = [:]
    var watched: [WatchKey: Watched] = [:]
    var nextEvent: UInt64 = 0
    /// The fences that expire, with when.
    var expiring: [String: Int64] = [:]
    /// The same, soonest first, so that a tick looks only at what is due. An entry whose fence
    /// was replaced or removed is skipped when it comes up (and dropped when they pile up).
    var expiries = Heap<Expiry>()
    /// What waits for its time, by fence and member: a debounced enter or exit, a dwell.
    var timed: [String: [Bytes: Timed]] = [:]
    /// The hooks each fence's events go to, as found by the hooks' patterns at
    /// `routesGeneration`.
    var routes: [String: [String]] = [:]
    var routesGeneration = -1
    /// Lines in the fence log: past four times the fences alive (and 10,000), it is rewritten.
    var logLines = 0
    var setCount = 0
  }

  private let inner: any ChangeLog
  private let keyspace: Keyspace
  /// A write waiting for the fences: its changes, its commit in the log, and (while any hook is
  /// set) the commit its reply waits for, answered once its hooks' events are kept too.
  private typealias Write = (changes: [Change], commit: Commit, reply: Commit?)
  private struct Waiting {
    var waiting: [Write] = []
    var draining = false
  }
  // NIO's pthread locks, not Synchronization's Mutex, where threads meet: ThreadSanitizer
  // sees them.
  private let queue = NIOLockedValueBox(Waiting())
  private let worker = DispatchQueue(label: "cardatlas.fences")
  /// Whether the ticker runs (`armTicker`).
  private let tickerArmed = Atomic<Bool>(false)
  /// Whether any fence is set: without one, writes are not queued.
  private let watching = Atomic<Bool>(false)
  /// Events published, and writes that had to evaluate the backlog themselves.
  private let published = Atomic<Int>(0)
  private let caughtUp = Atomic<Int>(0)
  private let hub: PubSubHub
  public let webhooks: Webhooks
  private let fenceLog: FenceLog
  private let state = NIOLockedValueBox(State())
  /// The most fences the server holds.
  let limit: Int
  /// Now, in ms since 1970: expiries are kept so (a test's clock is its own).
  let clock: @Sendable () -> Int64

  /// In front of `log`; the fences kept in `directory` (`FenceLog`) set again over `keyspace`,
  /// loaded already.
  public init(
    log: any ChangeLog, keyspace: Keyspace, hub: PubSubHub, webhooks: Webhooks,
    directory: String, limit: Int = 100_000,
    clock: @escaping @Sendable () -> Int64 = KeyspaceFences.now
  ) throws {
    self.clock = clock
    inner = log
    self.keyspace = keyspace
    self.hub = hub
    self.webhooks = webhooks
    self.limit = limit
    let (fenceLog, records) = try FenceLog.open(in: directory)
    self.fenceLog = fenceLog
    for record in records {
      guard let fence = Definition(record: record) else {
        throw FenceLog.Failure(description: "\(fenceLog.path): a fence does not read: \(record)")
      }
      if let expires = fence.expires, expires <= clock() {
        fenceLog.append(["del": fence.name]) { _ in }
        continue
      }
      _ = put(fence)
    }
    state.withLockedValue { $0.logLines = $0.fences.count }
    // Set one by one, each book's index is loose: built tight once.
    for watched in state.withLockedValue({ Array($0.watched.values) }) { watched.book.compact() }
  }

  /// Every `tickInterval` while a fence expires or an event waits on time: removes the fences
  /// whose time has come and publishes the events now due. The timer holds the fences weakly,
  /// and stops once nothing waits or they are gone.
  private func armTicker() {
    guard tickerArmed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    else { return }
    let timer = DispatchSource.makeTimerSource(queue: worker)
    timer.schedule(deadline: .now() + Self.tickInterval, repeating: Self.tickInterval)
    timer.setEventHandler { [weak self] in
      guard let self, self.tick() else { return timer.cancel() }
    }
    timer.resume()
  }

  static let tickInterval = DispatchTimeInterval.milliseconds(100)

  /// One tick: false once nothing waits (the timer then stops).
  func tick() -> Bool {
    expire()
    let now = clock()
    let (events, hooked, more) = state.withLockedValue {
      s -> ([Event], [(hook: String, payload: Data)], Bool) in
      let events = due(now, in: &s)
      let more = !s.expiring.isEmpty || !s.timed.isEmpty
      // Under the state's lock: what is timed after this arms a new ticker.
      if !more { tickerArmed.store(false, ordering: .relaxed) }
      return (events, route(events, in: &s), more)
    }
    published.add(events.count, ordering: .relaxed)
    for event in events { hub.publish(event.payload, to: event.channel) }
    if !hooked.isEmpty { webhooks.enqueue(hooked) { _ in } }
    return more
  }

  /// Removes the expired fences.
  func expire() {
    let now = clock()
    state.withLockedValue { s in
      while let next = s.expiries.min, next.at <= now {
        _ = s.expiries.popMin()
        guard s.expiring[next.name] == next.at else { continue }
        s.expiring[next.name] = nil
        guard let fence = s.fences.removeValue(forKey: next.name) else { continue }
        Self.drop(fence, from: &s)
        log(["del": next.name], in: &s)
      }
      if s.fences.isEmpty { watching.store(false, ordering: .relaxed) }
      Self.shrink(&s)
    }
  }

  public var commands: [CommandSpec] {
    FenceCommands(fences: self).all + HookCommands(webhooks: webhooks).all
  }

  // MARK: The log

  /// Hands the changes on, and queues them for the fences with their commit: evaluated on the
  /// fences' own thread, in order, so a write holds the keyspace's lock no longer than it did.
  /// A commit's events are published once it is durable, on that thread again, in commit order.
  public func append(_ changes: [Change]) -> Commit {
    let commit = inner.append(changes)
    guard watching.load(ordering: .relaxed) else { return commit }
    let reply = webhooks.isEmpty ? nil : Commit()
    let (start, full) = queue.withLockedValue { q -> (Bool, Bool) in
      q.waiting.append((changes, commit, reply))
      defer { q.draining = true }
      return (!q.draining, q.waiting.count >= Self.backlogLimit)
    }
    if full {
      // The fences fell behind: this write evaluates what waits, and so waits for it.
      state.withLockedValue { s in evaluate(takeWaiting(), in: &s) }
      caughtUp.add(1, ordering: .relaxed)
    } else if start {
      worker.async { self.drain() }
    }
    return reply ?? commit
  }

  /// The most writes that wait for the fences; past it, writes evaluate them themselves. Small,
  /// so that events are never far behind their writes (docs/BENCHMARKS.md, "Fences": 65,536
  /// let a saturated server run ahead of its fences by seconds).
  static let backlogLimit = 256

  private func takeWaiting() -> [Write] {
    queue.withLockedValue { q in
      defer { q.waiting = [] }
      return q.waiting
    }
  }

  /// INFO's fences section.
  public func report() -> [(String, String)] {
    let (fences, keys) = state.withLockedValue { ($0.fences.count, $0.watched.count) }
    return [
      ("fences", "\(fences)"), ("fence_keys", "\(keys)"),
      ("fence_events_published", "\(published.load(ordering: .relaxed))"),
      ("fence_backlog_writes", "\(queue.withLockedValue { $0.waiting.count })"),
      ("fence_backlog_caught_up_by_writes", "\(caughtUp.load(ordering: .relaxed))"),
    ]
  }

  /// Evaluates what waits, until nothing does.
  private func drain() {
    while true {
      let more = state.withLockedValue { s -> Bool in
        let batch = queue.withLockedValue { q -> [Write] in
          defer { q.waiting = [] }
          if q.waiting.isEmpty { q.draining = false }
          return q.waiting
        }
        evaluate(batch, in: &s)
        return !batch.isEmpty
      }
      guard more else { return }
    }
  }

  /// Evaluates `batch` (taken under the state's lock, so batches are evaluated in the order
  /// they were queued), and has each commit's events published once it is durable; a write's
  /// reply waits for its hooks' events to be kept in the outbox.
  private func evaluate(_ batch: [Write], in s: inout State) {
    for (changes, commit, reply) in batch {
      let events = evaluate(changes, in: &s)
      let hooked = route(events, in: &s)
      if hooked.isEmpty, let reply { commit.whenComplete { reply.complete($0) } }
      guard !events.isEmpty else { continue }
      // A commit completes after those before it, so the publications queue in commit order.
      commit.whenComplete { [self] result in
        guard case .success = result else {
          if !hooked.isEmpty { reply?.complete(result) }
          return
        }
        worker.async { [self] in
          published.add(events.count, ordering: .relaxed)
          for event in events { hub.publish(event.payload, to: event.channel) }
          guard !hooked.isEmpty else { return }
          webhooks.enqueue(hooked) { kept in
            reply?.complete(kept.mapError { HookEventsNotKept(reason: "\($0)") })
          }
        }
      }
    }
  }

  // MARK: Dwell and debounce

  /// Whether an event of a fence with `DWELL` or `DEBOUNCE` goes out now; if not, it may wait
  /// in `s.timed` (`due` sends it), or be dropped.
  private func timing(
    _ fence: Fence, _ kind: FenceEvent.Kind, _ member: Bytes, _ point: Coordinate?,
    in s: inout State
  ) -> Bool {
    let now = clock()
    let name = fence.name
    var timed = s.timed[name]?[member] ?? Timed()
    defer {
      if timed.isEmpty {
        s.timed[name]?[member] = nil
      } else {
        s.timed[name, default: [:]][member] = timed
      }
      if s.timed[name]?.isEmpty == true { s.timed[name] = nil }
      if !timed.isEmpty { armTicker() }
    }
    let debounce = fence.definition.debounce
    let dwell = fence.definition.dwell
    switch kind {
    case .enter:
      if let held = timed.held, held.kind == .exit {
        // Out and back within the debounce: neither is told, and it stays in as it was.
        timed.held = nil
        timed.point = point
        return false
      }
      timed.point = point
      if let dwell { timed.dwellUntil = now + dwell }
      guard let debounce else { return true }
      timed.held = (.enter, now + debounce, point)
      return false
    case .exit:
      if let held = timed.held, held.kind == .enter {
        // In and out within the debounce: neither is told.
        timed = Timed()
        return false
      }
      guard let debounce else {
        timed = Timed()
        return true
      }
      timed.held = (.exit, now + debounce, point)
      return false
    case .inside:
      timed.point = point
      // With a dwell, `inside` is the dwell's to send; with an enter held, not yet told.
      return dwell == nil && timed.held?.kind != .enter
    case .outside:
      return timed.held?.kind != .exit
    case .cross:
      return true
    }
  }

  /// The held enters and exits, and the dwells, whose time has come.
  private func due(_ now: Int64, in s: inout State) -> [Event] {
    var out: [Event] = []
    for (name, members) in s.timed {
      guard let fence = s.fences[name] else {
        s.timed[name] = nil
        continue
      }
      var left = members
      for (member, var timed) in members {
        func send(_ kind: FenceEvent.Kind, _ point: Coordinate?) {
          s.nextEvent += 1
          out.append(
            Event(
              fence: name, channel: fence.channel,
              payload: Self.payload(fence, kind, member, point, id: s.nextEvent)))
        }
        if let held = timed.held, held.until <= now {
          send(held.kind, held.point)
          timed.held = nil
          if held.kind == .exit { timed = Timed() }
        }
        if timed.held == nil, let until = timed.dwellUntil, until <= now {
          send(.inside, timed.point)
          timed.dwellUntil = nil
        }
        left[member] = timed.isEmpty ? nil : timed
      }
      s.timed[name] = left.isEmpty ? nil : left
    }
    return out
  }

  /// The events addressed to the hooks whose patterns match their fences' names.
  private func route(_ events: [Event], in s: inout State) -> [(hook: String, payload: Data)] {
    guard !events.isEmpty, !webhooks.isEmpty else { return [] }
    let generation = webhooks.generation
    if generation != s.routesGeneration {
      s.routes = [:]
      s.routesGeneration = generation
    }
    var hooked: [(hook: String, payload: Data)] = []
    for event in events {
      let hooks =
        s.routes[event.fence]
        ?? {
          let found = webhooks.hooks().filter {
            globMatches(Array($0.fences.utf8), Array(event.fence.utf8))
          }.map(\.name)
          s.routes[event.fence] = found
          return found
        }()
      guard !hooks.isEmpty else { continue }
      let payload = Data(event.payload.readableBytesView)
      for hook in hooks { hooked.append((hook, payload)) }
    }
    return hooked
  }

  /// An event made: its fence, where it is published, and its JSON.
  private struct Event {
    let fence: String
    let channel: Bytes
    let payload: ByteBuffer
  }

  /// The events the changes make, in order.
  private func evaluate(_ changes: [Change], in s: inout State) -> [Event] {
    do {
      var out: [Event] = []
      func moved(_ db: Int, _ key: Bytes, _ member: Bytes, to point: Coordinate?) {
        guard let watched = s.watched[WatchKey(db: db, key: key)] else { return }
        let (number, before) = watched.members.withLock { m in
          let number = m.number(member)
          return (number, m.places[number])
        }
        let events = watched.book.move(number, from: before, to: point)
        watched.members.withLock { m in
          if let point { m.places[number] = point } else { m.forget(number) }
        }
        for event in events {
          guard let name = watched.fences.withLock({ $0[event.fence] }),
            let fence = s.fences[name]
          else { continue }
          let at = point ?? before
          if fence.definition.dwell != nil || fence.definition.debounce != nil {
            guard timing(fence, event.kind, member, at, in: &s) else { continue }
          }
          s.nextEvent += 1
          out.append(
            Event(
              fence: name, channel: fence.channel,
              payload: Self.payload(fence, event.kind, member, at, id: s.nextEvent)))
        }
      }
      func emptied(_ watch: WatchKey) {
        guard let watched = s.watched[watch] else { return }
        let present = watched.members.withLock { m in m.places.map { (m.names[$0.key]!) } }
        for member in present { moved(watch.db, watch.key, member, to: nil) }
      }
      for change in changes {
        switch change {
        case .geoUpsert(let db, let key, let member, _, let lon, let lat):
          moved(db, key, member, to: Coordinate(longitude: lon, latitude: lat))
        case .geoRemove(let db, let key, let member):
          moved(db, key, member, to: nil)
        case .setString(let db, let key, _), .deleteKey(let db, let key):
          emptied(WatchKey(db: db, key: key))
        case .flushDatabase(let db):
          for watch in s.watched.keys where watch.db == db { emptied(watch) }
        case .flushAll:
          for watch in s.watched.keys { emptied(watch) }
        }
      }
      return out
    }
  }

  /// `{"event":…,"fence":…,"id":…,"key":…,"member":…,"point":[lon,lat],"time":…}`, keys
  /// sorted; written by hand, as an event costs a fraction of a move.
  static func payload(
    _ fence: Fence, _ kind: FenceEvent.Kind, _ member: Bytes, _ point: Coordinate?, id: UInt64
  ) -> ByteBuffer {
    var out = ByteBuffer()
    out.writeString(#"{"event":""#)
    out.writeString(kind.name)
    out.writeString(#"","fence":"#)
    writeJSONString(Array(fence.name.utf8), to: &out)
    out.writeString(#","id":\#(id),"key":"#)
    writeJSONString(fence.definition.key, to: &out)
    out.writeString(#","member":"#)
    writeJSONString(member, to: &out)
    if let point { out.writeString(#","point":[\#(point.longitude),\#(point.latitude)]"#) }
    out.writeString(#","time":\#(Int(Date().timeIntervalSince1970 * 1000))}"#)
    return out
  }

  /// A JSON string of `bytes` read as UTF-8 (a byte that is not becomes U+FFFD).
  static func writeJSONString(_ bytes: Bytes, to out: inout ByteBuffer) {
    out.writeInteger(UInt8(ascii: "\""))
    defer { out.writeInteger(UInt8(ascii: "\"")) }
    // Printable ASCII but for the quote and backslash: as it is.
    if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
      out.writeBytes(bytes)
      return
    }
    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
      switch scalar {
      case "\"": out.writeString(#"\""#)
      case "\\": out.writeString(#"\\"#)
      case "\n": out.writeString(#"\n"#)
      case "\r": out.writeString(#"\r"#)
      case "\t": out.writeString(#"\t"#)
      case _ where scalar.value < 0x20:
        out.writeString("\\u00" + String(scalar.value, radix: 16).leftPadded(to: 2))
      default: out.writeString(String(scalar))
      }
    }
  }

  // MARK: The commands' side

  enum SetError: Error {
    case full(Int)
    case wrongType
    /// The log could not keep it.
    case log(String)
  }

  /// Sets (or replaces) a fence, its key's members inside now becoming its members silently;
  /// `done` runs once it is kept.
  func set(_ fence: Definition, done: @escaping @Sendable (Result<Void, SetError>) -> Void) {
    switch put(fence, keeping: true, done: done) {
    case .success: break
    case .failure(let error): done(.failure(error))
    }
  }

  /// Sets a fence in memory, and (`keeping`) appends it to the log under the same locks, so the
  /// log has the fences in the order they were set.
  @discardableResult
  private func put(
    _ fence: Definition, keeping: Bool = false,
    done: @escaping @Sendable (Result<Void, SetError>) -> Void = { _ in }
  ) -> Result<Void, SetError> {
    // Under the keyspace's lock, so that no write falls between the members read and the fence.
    let result: Result<Void, SetError> = keyspace.write { writer in
      let present: [(Bytes, Coordinate)]
      switch writer.database(fence.db)[fence.key] {
      case .sortedSet(let set)?: present = Self.members(of: set, near: fence.area.shape.reach)
      case .string?: return .failure(.wrongType)
      case nil: present = []
      }
      return state.withLockedValue { s -> Result<Void, SetError> in
        // The writes still waiting first: the members read above are after them.
        evaluate(takeWaiting(), in: &s)
        if s.fences[fence.name] == nil, s.fences.count >= limit { return .failure(.full(limit)) }
        if let old = s.fences.removeValue(forKey: fence.name) { Self.drop(old, from: &s) }
        let watch = WatchKey(db: fence.db, key: fence.key)
        let watched = s.watched[watch] ?? Watched()
        s.watched[watch] = watched
        let seeded = watched.members.withLock { m in
          present.map { member, at in
            let number = m.number(member)
            m.places[number] = at
            return (object: number, at: at)
          }
        }
        let id = watched.book.add(
          fence.area.shape, detect: fence.detect, repeats: fence.repeats, present: seeded)
        watched.fences.withLock { $0[id] = fence.name }
        s.setCount += 1
        s.fences[fence.name] = Fence(definition: fence, id: id, order: s.setCount)
        s.expiring[fence.name] = fence.expires
        if let at = fence.expires {
          s.expiries.insert(Expiry(at: at, name: fence.name))
          if s.expiries.count > 2 * s.expiring.count + 1_024 {
            s.expiries = Heap(s.expiring.map { Expiry(at: $0.value, name: $0.key) })
          }
        }
        watching.store(true, ordering: .relaxed)
        if keeping {
          log(["set": fence.record], in: &s) { done($0.mapError { .log("\($0)") }) }
        }
        return .success(())
      }
    }.0
    if case .success = result, fence.expires != nil { armTicker() }
    return result
  }

  /// The members of `set` within `reach`, with their places, from the key's index (widened for
  /// the index's sphere, Redis's, a little larger than the fences').
  private static func members(of set: SortedSet, near reach: (center: Coordinate, radius: Double))
    -> [(Bytes, Coordinate)]
  {
    set.members(
      within: reach.radius * 1.001 + 1, ofLongitude: reach.center.longitude,
      latitude: reach.center.latitude
    ).map { ($0.member, Coordinate(longitude: $0.longitude, latitude: $0.latitude)) }
  }

  /// Removes a fence; `done` gets false if there was none, true once its removal is kept.
  func delete(_ name: String, done: @escaping @Sendable (Result<Bool, SetError>) -> Void) {
    let found = state.withLockedValue { s in
      guard let fence = s.fences.removeValue(forKey: name) else { return false }
      s.expiring[name] = nil
      Self.drop(fence, from: &s)
      if s.fences.isEmpty { watching.store(false, ordering: .relaxed) }
      Self.shrink(&s)
      log(["del": name], in: &s) { done($0.map { true }.mapError { .log("\($0)") }) }
      return true
    }
    if !found { done(.success(false)) }
  }

  /// Appends a line to the fence log (under the state's lock, so in the order of the changes),
  /// and rewrites the log once most of its lines are of fences gone.
  private func log(
    _ line: [String: Any], in s: inout State,
    done: @escaping @Sendable (Result<Void, any Error>) -> Void = { _ in }
  ) {
    fenceLog.append(line, done: done)
    s.logLines += 1
    guard s.logLines > max(10_000, 4 * s.fences.count) else { return }
    // In the order they were set, as a start's compaction keeps them.
    let alive = s.fences.values.sorted { $0.order < $1.order }
    fenceLog.rewrite(alive.map(\.definition.record))
    s.logLines = alive.count
  }

  /// A dictionary keeps its largest capacity: once the fences are a quarter of it, they move to
  /// one their size, so that memory follows the fences down (100,000 expiring held 40 MB).
  private static func shrink(_ s: inout State) {
    if s.fences.capacity > 1_024, s.fences.count < s.fences.capacity / 4 {
      s.fences = s.fences.reduce(into: Dictionary(minimumCapacity: s.fences.count)) {
        $0[$1.key] = $1.value
      }
      s.routes = [:]
    }
    if s.expiring.capacity > 1_024, s.expiring.count < s.expiring.capacity / 4 {
      s.expiring = s.expiring.reduce(into: Dictionary(minimumCapacity: s.expiring.count)) {
        $0[$1.key] = $1.value
      }
      s.expiries = Heap(s.expiring.map { Expiry(at: $0.value, name: $0.key) })
    }
  }

  private static func drop(_ fence: Fence, from s: inout State) {
    s.timed[fence.name] = nil
    let watch = WatchKey(db: fence.definition.db, key: fence.definition.key)
    guard let watched = s.watched[watch] else { return }
    watched.book.remove(fence.id)
    let left = watched.fences.withLock { fences in
      fences[fence.id] = nil
      return fences.count
    }
    if left == 0 { s.watched[watch] = nil }
  }

  /// A fence and the members inside it now.
  func get(_ name: String) -> (Definition, [Bytes])? {
    state.withLockedValue { s in
      guard let fence = s.fences[name],
        let watched = s.watched[WatchKey(db: fence.definition.db, key: fence.definition.key)]
      else { return nil }
      let numbers = watched.book.members(of: fence.id)
      let members = watched.members.withLock { m in numbers.compactMap { m.names[$0] } }
      return (fence.definition, members.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }

  /// The fences' names, sorted.
  func names() -> [String] { state.withLockedValue { $0.fences.keys.sorted() } }
}

/// The write is durable, but the events it made for webhooks could not be kept in the outbox.
struct HookEventsNotKept: Error, CustomStringConvertible {
  let reason: String
  var description: String {
    "the write is kept, but its webhook events could not be kept: \(reason)"
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
