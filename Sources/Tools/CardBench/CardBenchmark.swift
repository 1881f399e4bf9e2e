import Accounts
import Cards
import Datasets
import Dispatch
import DomainSupport
import Foundation
import Geodesy
import Keyspace
import SQLiteDomainStorage
import SpatialIndex
import Store

/// `cardatlas-bench cards`: the map search, clusters, wallet search and memory goals of the card
/// domain, in process. Cards are made through `Cards.create` (as CARD.CREATE makes them, without
/// RESP), at points clustered around real cities; GEOSEARCH runs on a GEO key of the same
/// points, interleaved with the card searches round by round so that a drift in the machine's
/// speed weighs on both alike.
public struct CardBenchmark {
  public struct Figure: Sendable {
    public var label: String
    /// Median over the rounds of the mean nanoseconds per operation.
    public var nanoseconds: Double
    public var note = ""
  }

  public var cards: Int
  public var perAccount: Int
  public var queries: Int
  public var rounds: Int
  public var walletCards: Int
  public var seed: UInt64
  public var directory: String
  let log: (String) -> Void

  public init(
    cards: Int, perAccount: Int = 1000, queries: Int = 2000, rounds: Int = 5,
    walletCards: Int = 10_000, seed: UInt64 = 1, directory: String,
    log: @escaping (String) -> Void
  ) {
    self.cards = cards
    self.perAccount = perAccount
    self.queries = queries
    self.rounds = rounds
    self.walletCards = walletCards
    self.seed = seed
    self.directory = directory
    self.log = log
  }

  public func run() async throws -> [Figure] {
    let generator = try DatasetGenerator()
    let points = generator.realistic(count: cards, seed: seed)
    let centres = generator.queryPoints(count: queries, seed: seed)
    let rssBefore = Self.residentBytes()
    let store = try Store(
      directory: directory, fsync: .batch,
      migrations: SQLiteAccounts.migrations + SQLiteCards.migrations + SQLiteWallets.migrations
        + SQLiteCardViews.migrations)
    var configuration = Cards.Configuration()
    configuration.proCardLimit = perAccount
    // Holders add cards to their wallets by the thousand.
    configuration.codeReadsPerAccount = 0
    configuration.codeReadsPerAddress = 0
    let accounts = try Accounts(storage: SQLiteAccounts(store), outbox: store.directory + "/outbox")
    let domain = try Cards(
      storage: SQLiteCards(store), accounts: accounts, configuration: configuration)

    log("creating \(cards) cards, \(perAccount) per Pro account")
    let started = DispatchTime.now().uptimeNanoseconds
    let owners = try await Self.makeAccounts((cards + perAccount - 1) / perAccount, accounts)
    var jsonBytes = 0
    // The codes of the cards a wallet will hold; no more is kept, so RSS is what the domain holds.
    var codes: [String] = []
    for start in stride(from: 0, to: cards, by: 5000) {
      let range = start..<min(cards, start + 5000)
      let jsons = range.map { Self.json($0, points[$0]) }
      jsonBytes += jsons.reduce(0) { $0 + $1.utf8.count }
      let made = try await Self.all(range.count) { i, done in
        domain.create(owner: owners[(range.lowerBound + i) / perAccount], json: jsons[i], done)
      }
      codes += made.prefix(max(0, walletCards - codes.count)).map(\.code)
    }
    let createSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let rssAfter = Self.residentBytes()
    var figures: [Figure] = []
    let beyond = (Double(rssAfter - rssBefore) - Double(jsonBytes)) / Double(cards)
    figures.append(
      Figure(
        label: "memory: RSS per card beyond its JSON", nanoseconds: beyond,
        note: "bytes (RSS +\(Self.mb(rssAfter - rssBefore)) MB, JSON \(Self.mb(jsonBytes)) MB)"))
    figures.append(
      Figure(
        label: "CARD.CREATE in process (fsync batch)",
        nanoseconds: createSeconds * 1e9 / Double(cards),
        note: "\(Int(Double(cards) / createSeconds)) per second"))

    // The same points as a GEO key, as the server holds GEOADD's.
    let set = SortedSet(
      entries: points.enumerated().map { i, p in
        (
          Bytes("p\(i)".utf8),
          Double(RedisGeohash.score(longitude: p.longitude, latitude: p.latitude)!)
        )
      })
    // The map as the creations left it (each card inserted alone, the tree loosened by them),
    // then as a restart builds it from the store (in one pass, as the GEO key here is).
    let built = domain.mapStatistics
    log(
      "map built card by card: \(built.count) cards, overflow \(built.overflow), "
        + "wear \(built.wear), \(built.rebuilds) rebuilds")
    figures += searches(domain, set, centres, " (map built card by card)")
    log("reloading the cards from the store, as a restart does")
    let restarted = try Cards(
      storage: SQLiteCards(store), accounts: accounts, configuration: configuration)
    figures += searches(restarted, set, centres, " (after a restart)")
    figures += clusters(restarted, centres)
    let notices = try Notices(
      storage: SQLiteNoticeSettings(store), cards: restarted, notifier: SilentNotifier())
    figures += try await walletSearch(
      try Wallets(storage: SQLiteWallets(store), cards: restarted, notices: notices), accounts,
      codes
    ) { try Wallets(storage: SQLiteWallets(store), cards: restarted, notices: notices) }
    store.close()
    return figures
  }

  // MARK: Map search

  func searches(_ domain: Cards, _ set: SortedSet, _ centres: [Coordinate], _ when: String)
    -> [Figure]
  {
    func geosearch(_ c: Coordinate) -> Int {
      var found = 0
      set.withSearch(
        RedisGeoArea.Search(
          longitude: c.longitude, latitude: c.latitude, shape: .circle(radius: 1), conversion: 1000),
        sort: .ascending, count: 10, any: false, distances: false
      ) { found = set.memberLengths($0) }
      return found
    }
    func search(_ c: Coordinate, _ filters: [CardFilter]) -> Int {
      var query = CardSearch(
        center: .point(longitude: c.longitude, latitude: c.latitude), shape: .radius(1000))
      query.count = 10
      query.filters = filters
      // As CARD.SEARCH reads them: the summaries as the map holds them, as GEOSEARCH's side
      // reads the member names.
      let summaries = domain.search(query) { hits, _ in hits.reduce(0) { $0 + $1.summary.count } }
      return (try? summaries.get()) ?? 0
    }
    let acme = [CardFilter(field: .company, value: "Acme")]
    let timed = interleaved([
      { centres.reduce(0) { $0 + geosearch($1) } },
      { centres.reduce(0) { $0 + search($1, []) } },
      { centres.reduce(0) { $0 + search($1, acme) } },
    ])
    let ns = timed.map { $0 / Double(centres.count) }
    return [
      Figure(label: "GEOSEARCH 1 km COUNT 10 (SortedSet.withSearch)" + when, nanoseconds: ns[0]),
      Figure(
        label: "CARD.SEARCH 1 km COUNT 10 (Cards.search)" + when, nanoseconds: ns[1],
        note: ratio(ns[1], ns[0]) + " × GEOSEARCH"),
      Figure(
        label: "CARD.SEARCH 1 km COUNT 10 FILTER company" + when, nanoseconds: ns[2],
        note: ratio(ns[2], ns[0]) + " × GEOSEARCH"),
    ]
  }

  // MARK: Clusters

  func clusters(_ domain: Cards, _ centres: [Coordinate]) -> [Figure] {
    let world = GeoBox(minLongitude: -180, minLatitude: -85, maxLongitude: 180, maxLatitude: 85)
    // A 1280 × 800 pixel map at zoom 12 (256-pixel tiles), around each query centre.
    let width = 5 * 360 / 4096.0
    let cities = centres.prefix(200).map { c in
      GeoBox(
        minLongitude: max(-180, c.longitude - width / 2),
        minLatitude: max(-85, c.latitude - width * 0.3),
        maxLongitude: min(180, c.longitude + width / 2),
        maxLatitude: min(85, c.latitude + width * 0.3))
    }
    let timed = interleaved([
      {
        (0..<20).reduce(0) { n, _ in
          n + ((try? domain.clusters(in: world, zoom: 3).get())?.count ?? 0)
        }
      },
      { cities.reduce(0) { $0 + ((try? domain.clusters(in: $1, zoom: 12).get())?.count ?? 0) } },
      // What `GET /v1/cards` answers: the same markers as GeoJSON text.
      {
        cities.reduce(0) { n, city in
          n
            + ((try? domain.clusters(in: city, zoom: 12).get()).map(CardGeoJSON.featureCollection)?
              .count ?? 0)
        }
      },
    ])
    return [
      Figure(label: "CARD.CLUSTERS world, zoom 3", nanoseconds: timed[0] / 20),
      Figure(
        label: "CARD.CLUSTERS a city (1280×800 px), zoom 12",
        nanoseconds: timed[1] / Double(cities.count)),
      Figure(
        label: "GeoJSON of a city (1280×800 px), zoom 12 (GET /v1/cards)",
        nanoseconds: timed[2] / Double(cities.count)),
    ]
  }

  // MARK: Wallet search

  /// Fills one wallet with the `held` cards and searches it; `restart` loads the wallets from
  /// the store again, as a restart does.
  func walletSearch(
    _ wallets: Wallets, _ accounts: Accounts, _ held: [String], restart: () throws -> Wallets
  ) async throws -> [Figure] {
    let holder = try await Self.makeAccounts(1, accounts, prefix: "holder")[0]
    log("adding \(held.count) cards to one wallet")
    let rssBefore = Self.residentBytes()
    for start in stride(from: 0, to: held.count, by: 2000) {
      let range = start..<min(held.count, start + 2000)
      _ = try await Self.all(range.count) { i, done in
        wallets.add(account: holder, held[range.lowerBound + i], client: "bench", done)
      }
    }
    let rssGrowth = Self.residentBytes() - rssBefore
    let t0 = DispatchTime.now().uptimeNanoseconds
    _ = try restart()
    let loadNanoseconds = Double(DispatchTime.now().uptimeNanoseconds - t0)
    let words = ["card1", "acme", "eng", "card4242", "glob des", "um"]
    let timed = interleaved(
      words.map { word in
        {
          (0..<20).reduce(0) { n, _ in
            n + wallets.search(account: holder, text: word, count: 10).count
          }
        }
      })
    return zip(words, timed).map { word, ns in
      Figure(label: "WALLET.SEARCH \"\(word)\" on \(held.count) cards", nanoseconds: ns / 20)
    } + [
      Figure(
        label: "memory: RSS per wallet entry", nanoseconds: Double(rssGrowth) / Double(held.count),
        note: "bytes, RSS growth over the \(held.count) adds, the store's page cache included"),
      Figure(label: "wallets loaded from the store, as at a restart", nanoseconds: loadNanoseconds),
    ]
  }

  // MARK: Helpers

  /// Runs each job once per round, in turn (odd rounds backwards); the median over the rounds of
  /// each job's nanoseconds.
  func interleaved(_ jobs: [() -> Int]) -> [Double] { Self.interleaved(jobs, rounds: rounds) }

  public static func interleaved(_ jobs: [() -> Int], rounds: Int) -> [Double] {
    var times = jobs.map { _ in [Double]() }
    var sink = 0
    for job in jobs { sink &+= job() }  // warm-up
    for round in 0..<rounds {
      let order = round % 2 == 0 ? Array(jobs.indices) : jobs.indices.reversed()
      for j in order {
        let t0 = DispatchTime.now().uptimeNanoseconds
        sink &+= jobs[j]()
        times[j].append(Double(DispatchTime.now().uptimeNanoseconds - t0))
      }
    }
    // Used, so the jobs' work is not optimized away.
    if sink == -1 { print("") }
    return times.map { $0.sorted()[$0.count / 2] }
  }

  func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", a / b) }

  static func json(_ i: Int, _ p: Coordinate) -> String {
    let companies = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell"]
    let titles = ["Engineer", "Designer", "Lawyer", "Doctor", "Architect", "Consultant"]
    return #"{"firstName":"Card\#(i)","company":"\#(companies[i % companies.count])","#
      + #""jobTitle":"\#(titles[i % titles.count])","showOnMap":true,"#
      + #""location":{"lon":\#(p.longitude),"lat":\#(p.latitude)}}"#
  }

  public static func makeAccounts(_ count: Int, _ accounts: Accounts, prefix: String = "bench")
    async throws -> [Int64]
  {
    try await all(count) { i, done in
      accounts.create(passwordless: "\(prefix)\(i)@cardatlas.invalid", isPro: true) {
        done($0.map(\.id))
      }
    }
  }

  /// Starts `count` callback-style operations at once; their results, in order.
  public static func all<T: Sendable, E: Error>(
    _ count: Int, _ start: (Int, @escaping @Sendable (Result<T, E>) -> Void) -> Void
  ) async throws -> [T] {
    let results = Collected<T>(count)
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
      results.finished = finished
      for i in 0..<count { start(i) { results.set(i, $0.mapError { $0 as any Error }) } }
      if count == 0 { finished.resume() }
    }
    return try results.values()
  }

  static func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kb * 1024
  }

  static func mb(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
}

/// Results arriving from other threads, and the continuation to resume once all have.
private final class Collected<T: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Result<T, any Error>?]
  private var left: Int
  var finished: CheckedContinuation<Void, Never>?

  init(_ count: Int) {
    results = Array(repeating: nil, count: count)
    left = count
  }

  func set(_ i: Int, _ result: Result<T, any Error>) {
    let done = lock.withLock { () -> Bool in
      results[i] = result
      left -= 1
      return left == 0
    }
    if done { lock.withLock { finished }?.resume() }
  }

  func values() throws -> [T] { try results.map { try $0!.get() } }
}
