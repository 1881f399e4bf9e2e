import Accounts
import Cards
import Datasets
import Dispatch
import DomainSupport
import Foundation
import Geodesy
import People
import SQLiteDomainStorage
import Store
import Synchronization

/// `cardatlas-bench people`: PEOPLE.NEARBY's goal in process. Each of `people` accounts has a
/// primary card (made through `Cards.create`) and a live presence at points clustered around
/// real cities; while a thread moves `updatesPerSecond` presences a second (each up to 100 m),
/// searches from random people's presences are timed one by one, as `People.nearby` answers
/// PEOPLE.NEARBY (without RESP). Also PRESENCE.SET in process, alone.
public struct PeopleBenchmark {
  public var people: Int
  public var searches: Int
  public var updatesPerSecond: Int
  public var radius: Double
  public var count: Int
  public var seed: UInt64
  public var directory: String
  let log: (String) -> Void

  public init(
    people: Int, searches: Int = 100_000, updatesPerSecond: Int = 10_000, radius: Double = 1000,
    count: Int = 20, seed: UInt64 = 1, directory: String, log: @escaping (String) -> Void
  ) {
    self.people = people
    self.searches = searches
    self.updatesPerSecond = updatesPerSecond
    self.radius = radius
    self.count = count
    self.seed = seed
    self.directory = directory
    self.log = log
  }

  public func run() async throws -> [CardBenchmark.Figure] {
    let points = try DatasetGenerator().realistic(count: people, seed: seed)
    let store = try Store(
      directory: directory, fsync: .batch,
      migrations: SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
        + SQLiteCardViews.migrations + SQLiteExchanges.migrations)
    defer { store.close() }
    let accounts = try Accounts(storage: SQLiteAccounts(store), outbox: store.directory + "/outbox")
    let cards = try Cards(storage: SQLiteCards(store), accounts: accounts)
    let notices = try Notices(
      storage: SQLiteNoticeSettings(store), cards: cards, notifier: SilentNotifier())
    let wallets = try Wallets(storage: SQLiteWallets(store), cards: cards, notices: notices)
    var configuration = People.Configuration()
    configuration.searchesPerMinute = nil
    configuration.searchCellsPerAccount = 0
    configuration.searchCellsPerAddress = 0
    configuration.maxTTL = 86_400
    let domain = try People(
      storage: SQLiteExchanges(store), accounts: accounts, cards: cards, wallets: wallets,
      notifier: SilentNotifier(), configuration: configuration)

    log("creating \(people) accounts, each with a primary card")
    var ids: [Int64] = []
    for start in stride(from: 0, to: people, by: 5000) {
      let range = start..<min(people, start + 5000)
      let made = try await CardBenchmark.makeAccounts(
        range.count, accounts, prefix: "person\(start)-")
      _ = try await CardBenchmark.all(range.count) { i, done in
        cards.create(
          owner: made[i], json: #"{"firstName":"Person\#(range.lowerBound + i)","company":"Acme"}"#,
          done)
      }
      ids += made
    }
    log("setting \(people) presences")
    let t0 = DispatchTime.now().uptimeNanoseconds
    for (i, id) in ids.enumerated() {
      _ = domain.setPresence(
        account: id, longitude: points[i].longitude, latitude: points[i].latitude,
        findable: true, ttl: 86_400)
    }
    let setNanos = Double(DispatchTime.now().uptimeNanoseconds - t0) / Double(people)
    var figures = [
      CardBenchmark.Figure(
        label: "PRESENCE.SET in process (\(people) people)", nanoseconds: setNanos,
        note: "\(Int(1e9 / setNanos)) per second, one thread")
    ]

    let mover = Mover()
    Thread { [ids, points, updatesPerSecond, seed] in
      mover.run(domain, ids, points, perSecond: updatesPerSecond, seed: seed)
    }.start()
    var rng = SeededGenerator(seed: seed, stream: 0x4E45_4152)  // "NEAR"
    var latencies: [Double] = []
    latencies.reserveCapacity(searches)
    var found = 0
    let started = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<searches {
      let account = ids[rng.nextInt(below: ids.count)]
      let q0 = DispatchTime.now().uptimeNanoseconds
      let result = domain.nearby(
        account: account, client: "bench", radius: radius, count: count)
      latencies.append(Double(DispatchTime.now().uptimeNanoseconds - q0))
      if case .success(let people) = result { found += people.count }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let rate = Double(mover.stop()) / seconds
    latencies.sort()
    let shape = "\(Int(radius)) m, COUNT \(count)"
    figures.append(
      CardBenchmark.Figure(
        label: "PEOPLE.NEARBY median (\(shape))", nanoseconds: latencies[latencies.count / 2],
        note:
          "\(people) live presences, \(Int(rate)) moves/s meanwhile, "
          + String(format: "%.1f", Double(found) / Double(searches)) + " people a search"))
    figures.append(
      CardBenchmark.Figure(
        label: "PEOPLE.NEARBY p99 (\(shape))",
        nanoseconds: latencies[latencies.count * 99 / 100]))
    return figures
  }

}

/// The thread that moves presences while the searches run.
private final class Mover: Sendable {
  private let stopping = Atomic(false)
  private let moved = Atomic(0)
  private let finished = DispatchSemaphore(value: 0)

  /// Stops it; how many presences it moved.
  func stop() -> Int {
    stopping.store(true, ordering: .relaxed)
    finished.wait()
    return moved.load(ordering: .relaxed)
  }

  /// Moves random presences up to 100 m, `perSecond` a second in batches of 1 ms, until stopped.
  func run(_ people: People, _ ids: [Int64], _ points: [Coordinate], perSecond: Int, seed: UInt64) {
    var rng = SeededGenerator(seed: seed, stream: 0x4D4F_5645)  // "MOVE"
    let start = DispatchTime.now().uptimeNanoseconds
    var done = 0
    while !stopping.load(ordering: .relaxed) {
      let due = Int(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 * Double(perSecond))
      while done < due {
        let i = rng.nextInt(below: ids.count)
        let step = 100 / 111_195 * rng.nextDouble()
        _ = people.setPresence(
          account: ids[i], longitude: min(180, points[i].longitude + step),
          latitude: max(-85, min(85, points[i].latitude + step)), findable: true, ttl: 86_400)
        done += 1
      }
      moved.store(done, ordering: .relaxed)
      usleep(1000)
    }
    finished.signal()
  }
}
