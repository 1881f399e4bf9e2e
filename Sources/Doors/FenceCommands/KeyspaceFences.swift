import Commands
import Fences
import Foundation
import Geodesy
import Keyspace
import NIOCore
import Synchronization

/// Fences over the keyspace's GEO keys. It is the keyspace's change log, in front of the real
/// one: every write's changes pass through it under the keyspace's lock, in the order they were
/// made, so each move is evaluated against the fences of its key with the member's last
/// position; the events are published once the write is durable, just before it is
/// acknowledged. What another node wrote (over PostgreSQL) does not pass here.
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

    /// As kept in the log.
    var record: [String: Any] {
      [
        "name": name, "db": db, "key": Data(key).base64EncodedString(),
        "area": (try? JSONSerialization.jsonObject(with: area.description)) ?? [:],
        "detect": Int(detect.rawValue), "repeats": repeats,
        "channel": Data(channel).base64EncodedString(),
      ]
    }

    init(
      name: String, db: Int, key: Bytes, area: FenceArea, detect: FenceDetect, repeats: Bool,
      channel: Bytes
    ) {
      self.name = name
      self.db = db
      self.key = key
      self.area = area
      self.detect = detect
      self.repeats = repeats
      self.channel = channel
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
        channel: Array(channel))
    }
  }

  /// A fence set, and its number in its key's book.
  struct Fence: Sendable {
    let definition: Definition
    let id: FenceBook.FenceID
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

  struct WatchKey: Hashable {
    let db: Int
    let key: Bytes
  }

  private struct State {
    var fences: [String: Fence] = [:]
    var watched: [WatchKey: Watched] = [:]
    var nextEvent: UInt64 = 0
  }

  private let inner: any ChangeLog
  private let keyspace: Keyspace
  private let hub: PubSubHub
  private let fenceLog: FenceLog
  private let state = Mutex(State())
  /// The most fences the server holds.
  let limit: Int

  /// In front of `log`; the fences kept in `directory` (`FenceLog`) set again over `keyspace`,
  /// loaded already.
  public init(
    log: any ChangeLog, keyspace: Keyspace, hub: PubSubHub, directory: String,
    limit: Int = 100_000
  ) throws {
    inner = log
    self.keyspace = keyspace
    self.hub = hub
    self.limit = limit
    let (fenceLog, records) = try FenceLog.open(in: directory)
    self.fenceLog = fenceLog
    for record in records {
      guard let fence = Definition(record: record) else {
        throw FenceLog.Failure(description: "\(fenceLog.path): a fence does not read: \(record)")
      }
      _ = put(fence)
    }
  }

  public var commands: [CommandSpec] { FenceCommands(fences: self).all }

  // MARK: The log

  public func append(_ changes: [Change]) -> Commit {
    let commit = inner.append(changes)
    let events = evaluate(changes)
    guard !events.isEmpty else { return commit }
    let published = Commit()
    commit.whenComplete { [hub] result in
      if case .success = result {
        for (channel, payload) in events { hub.publish(payload, to: channel) }
      }
      published.complete(result)
    }
    return published
  }

  /// The events the changes make, as (channel, JSON) in order.
  private func evaluate(_ changes: [Change]) -> [(Bytes, ByteBuffer)] {
    state.withLock { s in
      guard !s.watched.isEmpty else { return [] }
      var out: [(Bytes, ByteBuffer)] = []
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
          s.nextEvent += 1
          out.append(
            (
              fence.channel,
              Self.payload(fence, event.kind, member, point ?? before, id: s.nextEvent)
            ))
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

  /// `{"event":…,"fence":…,"key":…,"member":…,"point":[lon,lat],"id":…,"time":…}`.
  static func payload(
    _ fence: Fence, _ kind: FenceEvent.Kind, _ member: Bytes, _ point: Coordinate?, id: UInt64
  ) -> ByteBuffer {
    var object: [String: Any] = [
      "event": kind.name, "fence": fence.name,
      "key": String(decoding: fence.definition.key, as: UTF8.self),
      "member": String(decoding: member, as: UTF8.self), "id": id,
      "time": Int(Date().timeIntervalSince1970 * 1000),
    ]
    if let point { object["point"] = [point.longitude, point.latitude] }
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return ByteBuffer(bytes: data)
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
    keyspace.write { writer in
      let present: [(Bytes, Coordinate)]
      switch writer.database(fence.db)[fence.key] {
      case .sortedSet(let set)?: present = Self.members(of: set, near: fence.area.shape.reach)
      case .string?: return .failure(.wrongType)
      case nil: present = []
      }
      return state.withLock { s -> Result<Void, SetError> in
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
        s.fences[fence.name] = Fence(definition: fence, id: id)
        if keeping {
          fenceLog.append(["set": fence.record]) { done($0.mapError { .log("\($0)") }) }
        }
        return .success(())
      }
    }.0
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
    let found = state.withLock { s in
      guard let fence = s.fences.removeValue(forKey: name) else { return false }
      Self.drop(fence, from: &s)
      fenceLog.append(["del": name]) { done($0.map { true }.mapError { .log("\($0)") }) }
      return true
    }
    if !found { done(.success(false)) }
  }

  private static func drop(_ fence: Fence, from s: inout State) {
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
    state.withLock { s in
      guard let fence = s.fences[name],
        let watched = s.watched[WatchKey(db: fence.definition.db, key: fence.definition.key)]
      else { return nil }
      let numbers = watched.book.members(of: fence.id)
      let members = watched.members.withLock { m in numbers.compactMap { m.names[$0] } }
      return (fence.definition, members.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }

  /// The fences' names, sorted.
  func names() -> [String] { state.withLock { $0.fences.keys.sorted() } }
}
