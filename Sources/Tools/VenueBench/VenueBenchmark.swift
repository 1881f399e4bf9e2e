import Accounts
import Datasets
import Dispatch
import DomainSupport
import Foundation
import SQLiteDomainStorage
import Store
import Synchronization
import Venues

/// `cardatlas-bench venues`: the exposure search and check-ins in process. A month of visits is
/// replayed through `Venues.checkIn` and `checkOut` (as CHECKIN and CHECKOUT make them, without
/// RESP) on a simulated clock: accounts check in at venues near their home (venues placed
/// around real cities), most check out after a stay of 15 minutes to 4 hours, some never do
/// (their visit stays open, or closes at their next check-in). Then EXPOSURE is timed for
/// random accounts over the whole month, and for the account with the most visits.
public struct VenueBenchmark {
  public struct Figure: Sendable {
    public var label: String
    public var value: String
    public var note = ""
  }

  public var visits: Int
  public var accounts: Int
  public var venues: Int
  public var queries: Int
  public var seed: UInt64
  public var directory: String
  let log: (String) -> Void

  public init(
    visits: Int, accounts: Int, venues: Int, queries: Int, seed: UInt64, directory: String,
    log: @escaping (String) -> Void
  ) {
    self.visits = visits
    self.accounts = accounts
    self.venues = venues
    self.queries = queries
    self.seed = seed
    self.directory = directory
    self.log = log
  }

  static let month = 30 * 86_400.0
  static let start = 1_780_000_000.0

  public func run() async throws -> [Figure] {
    let clock = Clock()
    let store = try Store(
      directory: directory, fsync: .batch,
      migrations: SQLiteAccounts.migrations + SQLiteVenues.migrations
    )
    let people = try Accounts(storage: SQLiteAccounts(store), outbox: store.directory + "/outbox")
    var configuration = Venues.Configuration()
    configuration.clock = { clock.date }
    configuration.createsPerHour = 0
    let domain = try Venues(
      storage: SQLiteVenues(store), accounts: people, notifier: SilentNotifier(),
      configuration: configuration)
    log("creating \(accounts) accounts and \(venues) venues")
    let ids = try await Self.all(accounts) { i, done in
      people.create(passwordless: "visitor\(i)@cardatlas.invalid", isPro: false) {
        done($0.map(\.id).mapError { $0 })
      }
    }
    let points = try DatasetGenerator().realistic(count: venues, seed: seed)
    clock.seconds = Self.start
    let codes = try await Self.all(venues) { i, done in
      domain.create(
        owner: ids[i % ids.count],
        json: #"{"name":"Venue \#(i)","lon":\#(points[i].longitude),"lat":\#(points[i].latitude)}"#
      ) { done($0.map(\.code).mapError { $0 }) }
    }

    log("replaying \(visits) visits over 30 days")
    var rng = SeededGenerator(seed: seed)
    // Each account visits mostly a few venues of its own (home, work, shops).
    let haunts = (0..<accounts).map { _ in (0..<8).map { _ in rng.below(venues) } }
    var checkOuts: [(at: Double, account: Int)] = []
    let step = Self.month / Double(visits)
    let started = DispatchTime.now().uptimeNanoseconds
    let pending = Pending()
    for i in 0..<visits {
      let t = Self.start + Double(i) * step
      // Checkouts due by now, in time order (the list is kept sorted, latest first).
      while let last = checkOuts.last, last.at <= t {
        checkOuts.removeLast()
        clock.seconds = last.at
        pending.start()
        domain.checkOut(account: ids[last.account]) { pending.finish($0.map { _ in () }) }
      }
      clock.seconds = t
      let account = rng.below(accounts)
      let venue = rng.below(10) < 8 ? haunts[account][rng.below(8)] : rng.below(venues)
      pending.start()
      domain.checkIn(account: ids[account], code: codes[venue], at: nil) {
        pending.finish($0.map { _ in () })
      }
      if rng.below(10) < 9 {
        let stay = 900 + Double(rng.below(13_500))
        let due = (at: t + stay, account: account)
        let index = checkOuts.partitioningIndex { $0.at > due.at }
        checkOuts.insert(due, at: index)
      }
      if i % 5000 == 4999 { try await pending.drain() }
    }
    try await pending.drain()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    var figures = [
      Figure(
        label: "CHECKIN and CHECKOUT in process (fsync batch)",
        value: String(format: "%.0f per second", Double(visits) / seconds),
        note: "\(visits) visits in \(String(format: "%.1f", seconds)) s")
    ]
    clock.seconds = Self.start + Self.month

    let subjects = (0..<queries).map { _ in ids[rng.below(accounts)] }
    let (from, to) = (Self.start, Self.start + Self.month)
    var hits = 0
    var times: [Double] = []
    var cpu: [Double] = []
    for subject in subjects {
      let (t0, c0) = (DispatchTime.now().uptimeNanoseconds, Self.threadCPU())
      let found = try domain.exposures(by: .admin, of: subject, from: from, to: to).get()
      times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
      cpu.append((Self.threadCPU() - c0) / 1e6)
      hits += found.count
    }
    times.sort()
    cpu.sort()
    figures.append(
      Figure(
        label: "EXPOSURE over \(visits) visits, a random account, 30 days",
        value: String(
          format: "median %.3f ms, p99 %.3f ms, max %.3f ms", times[times.count / 2],
          times[times.count * 99 / 100], times.last!),
        note: "\(queries) accounts, \(hits / max(1, queries)) exposures each on average; "
          + String(
            format: "CPU time of the searching thread: median %.3f, p99 %.3f, max %.3f ms",
            cpu[cpu.count / 2], cpu[cpu.count * 99 / 100], cpu.last!)))
    // The busiest visitor: the most visits of all, in the busiest venues.
    let counts = ids.map { domain.history(account: $0, from: nil, to: nil, count: 10_000).count }
    let busiest = ids[counts.indices.max { counts[$0] < counts[$1] }!]
    var worst: [Double] = []
    var found = 0
    for _ in 0..<20 {
      let t0 = DispatchTime.now().uptimeNanoseconds
      found = try domain.exposures(by: .admin, of: busiest, from: from, to: to).get().count
      worst.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
    }
    worst.sort()
    figures.append(
      Figure(
        label: "EXPOSURE over \(visits) visits, the account with the most visits, 30 days",
        value: String(format: "median %.3f ms, max %.3f ms", worst[worst.count / 2], worst.last!),
        note: "\(counts.max()!) visits, \(found) exposures"))
    store.close()
    return figures
  }

  /// Nanoseconds of CPU the calling thread has run: what a search cost, less the time other
  /// processes held the cores.
  static func threadCPU() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
  }

  static func all<T: Sendable>(
    _ count: Int, _ start: (Int, @escaping @Sendable (Result<T, any Error>) -> Void) -> Void
  ) async throws -> [T] {
    let results = Mutex([Result<T, any Error>?](repeating: nil, count: count))
    let pending = Pending()
    for i in 0..<count {
      pending.start()
      start(i) { result in
        results.withLock { $0[i] = result }
        pending.finish(result.map { _ in () })
      }
    }
    try await pending.drain()
    return try results.withLock { try $0.map { try $0!.get() } }
  }
}

/// The simulated time the venues read.
final class Clock: Sendable {
  private let value = Atomic<Double>(0)
  var seconds: Double {
    get { value.load(ordering: .relaxed) }
    set { value.store(newValue, ordering: .relaxed) }
  }
  var date: Date { Date(timeIntervalSince1970: seconds) }
}

/// Operations started and not yet finished, and the first failure.
final class Pending: @unchecked Sendable {
  private let lock = NSCondition()
  private var running = 0
  private var failure: (any Error)?

  func start() { lock.withLock { running += 1 } }

  func finish<E: Error>(_ result: Result<Void, E>) {
    lock.withLock {
      running -= 1
      if case .failure(let error) = result, failure == nil { failure = error }
      lock.broadcast()
    }
  }

  /// Waits (on a thread of its own) until every started operation has finished.
  func drain() async throws {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        self.lock.withLock { while self.running > 0 { self.lock.wait() } }
        done.resume()
      }.start()
    }
    if let failure = lock.withLock({ failure }) { throw failure }
  }
}

extension SeededGenerator {
  /// A number in 0..<n: the same visits for the same seed.
  mutating func below(_ n: Int) -> Int { Int.random(in: 0..<n, using: &self) }
}

extension Array {
  /// The first index whose element is not `belongs`, the array being partitioned by it.
  fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
    var (low, high) = (0, count)
    while low < high {
      let mid = (low + high) / 2
      if belongs(self[mid]) { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
