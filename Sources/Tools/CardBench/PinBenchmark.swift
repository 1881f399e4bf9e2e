import Accounts
import Datasets
import Dispatch
import Foundation
import Geodesy
import Keyspace
import MediaFiles
import Pins
import SQLiteDomainStorage
import Store

/// `cardatlas-bench pins`: PIN.AT's goal in process. Pins are made through `Pins.add` (as
/// PIN.ADD makes them, without RESP) at points clustered around real cities, each with a
/// viewing radius drawn from 10 m to 1 km on a log scale; PIN.AT (`Pins.at`: the circles
/// holding the point, with their JSON) is timed from query points drawn like the data, against
/// GEOSEARCH 1 km COUNT 10 on a GEO key of the same points, interleaved round by round.
public struct PinBenchmark {
  public var pins: Int
  public var queries: Int
  public var rounds: Int
  public var seed: UInt64
  public var directory: String
  let log: (String) -> Void

  public init(
    pins: Int, queries: Int = 2000, rounds: Int = 5, seed: UInt64 = 1, directory: String,
    log: @escaping (String) -> Void
  ) {
    self.pins = pins
    self.queries = queries
    self.rounds = rounds
    self.seed = seed
    self.directory = directory
    self.log = log
  }

  public func run() async throws -> [CardBenchmark.Figure] {
    let generator = try DatasetGenerator()
    let points = generator.realistic(count: pins, seed: seed)
    let radii = PinRadii.draw(count: pins, seed: seed)
    let centres = generator.queryPoints(count: queries, seed: seed)
    let store = try Store(
      directory: directory, fsync: .batch,
      migrations: SQLiteAccounts.migrations + SQLitePins.migrations)
    let accounts = try Accounts(storage: SQLiteAccounts(store), outbox: store.directory + "/outbox")
    let media = try MediaFiles(directory: store.directory + "/media/pins")
    var unlimited = Pins.Configuration()
    unlimited.addsPerHour = 0
    let domain = try Pins(
      storage: SQLitePins(store), accounts: accounts, media: media, configuration: unlimited)
    let owners = try await CardBenchmark.makeAccounts(100, accounts)
    log("creating \(pins) pins")
    let started = DispatchTime.now().uptimeNanoseconds
    for start in stride(from: 0, to: pins, by: 5000) {
      let range = start..<min(pins, start + 5000)
      _ = try await CardBenchmark.all(range.count) { i, done in
        let j = range.lowerBound + i
        domain.add(
          owner: owners[j % owners.count], longitude: points[j].longitude,
          latitude: points[j].latitude, radius: radii[j], json: #"{"caption":"Pin \#(j)"}"#, done)
      }
    }
    let createSeconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    var figures = [
      CardBenchmark.Figure(
        label: "PIN.ADD in process (fsync batch)", nanoseconds: createSeconds * 1e9 / Double(pins),
        note: "\(Int(Double(pins) / createSeconds)) per second")
    ]
    let set = SortedSet(
      entries: points.enumerated().map { i, p in
        (
          Bytes("p\(i)".utf8),
          Double(RedisGeohash.score(longitude: p.longitude, latitude: p.latitude)!)
        )
      })
    figures += at(domain, set, centres, " (index built pin by pin)")
    log("reloading the pins from the store, as a restart does")
    figures += at(
      try Pins(
        storage: SQLitePins(store), accounts: accounts, media: media, configuration: unlimited),
      set,
      centres, " (after a restart)")
    store.close()
    return figures
  }

  func at(_ domain: Pins, _ set: SortedSet, _ centres: [Coordinate], _ when: String)
    -> [CardBenchmark.Figure]
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
    func at(_ c: Coordinate) -> Int {
      (try? domain.at(longitude: c.longitude, latitude: c.latitude).get())?.count ?? 0
    }
    let timed = CardBenchmark.interleaved(
      [
        { centres.reduce(0) { $0 + geosearch($1) } },
        { centres.reduce(0) { $0 + at($1) } },
      ], rounds: rounds)
    let ns = timed.map { $0 / Double(centres.count) }
    // Each query alone, for the median query (the goal's figure).
    var each: [Double] = []
    var hits = 0
    for c in centres {
      let t0 = DispatchTime.now().uptimeNanoseconds
      hits += at(c)
      each.append(Double(DispatchTime.now().uptimeNanoseconds - t0))
    }
    each.sort()
    let perQuery = String(format: "%.1f", Double(hits) / Double(centres.count))
    return [
      CardBenchmark.Figure(label: "GEOSEARCH 1 km COUNT 10" + when, nanoseconds: ns[0]),
      CardBenchmark.Figure(
        label: "PIN.AT mean (Pins.at)" + when, nanoseconds: ns[1],
        note: String(format: "%.2f", ns[1] / ns[0]) + " × GEOSEARCH; \(perQuery) pins per point"),
      CardBenchmark.Figure(
        label: "PIN.AT median query" + when, nanoseconds: each[each.count / 2],
        note: String(
          format: "p90 %.1f µs, p99 %.1f µs", each[each.count * 9 / 10] / 1000,
          each[each.count * 99 / 100] / 1000)),
    ]
  }
}
