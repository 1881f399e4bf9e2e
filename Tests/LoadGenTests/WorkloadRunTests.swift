import Datasets
import Foundation
import RESP
import RedisTestSupport
import Testing

@testable import LoadGen

/// Each workload against a real redis-server: every request answered, none with an error,
/// percentiles in order, the points loaded. Speed is never asserted.
@Suite struct WorkloadRunTests {
  // cards and pins: CardWorkloadTests, PinWorkloadTests; checkin: CheckInWorkloadTests;
  // presence: PresenceWorkloadTests.
  @Test(
    arguments: Workload.allCases.filter { !$0.makesRecords && ![.checkin, .presence].contains($0) })
  func runsAgainstRedis(_ workload: Workload) async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let points = workload == .ping ? 0 : 2000
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(workload, target: server, points: points)
    ).run()

    #expect(report.targets.count == 1)
    let result = try #require(report.targets.first)
    #expect(result.role == .target)
    #expect(result.server == server)
    #expect(result.requests == 3000)
    #expect(result.latency.totalCount == 3000)
    #expect(result.errors == 0, "\(result.errorSamples)")
    #expect(report.errors == 0)
    #expect(result.seconds > 0)
    #expect(result.throughput > 0)
    expectMonotone(result.summary)
    #expect(report.ratio == nil)

    let cardinality = try await withClient(server) { try await $0.send("ZCARD", "bench:points") }
    guard case .integer(let count) = cardinality else {
      Issue.record("ZCARD answered \(cardinality)")
      return
    }
    if workload == .ping {
      #expect(result.load == nil)
      #expect(count == 0)
    } else {
      #expect(result.load?.points == 2000)
      // Moves change where members are, never how many there are.
      #expect(count == 2000)
    }
  }

  @Test func searchesFindTheLoadedPoints() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let generator = try DatasetGenerator()
    let points = PointSet.realistic(count: 2000, seed: 7, generator: generator)
    // A fixed centre on a loaded point: every radius search finds it.
    let centre = LonLat(longitude: points.longitudes[5], latitude: points.latitudes[5])
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(.radius, target: server, center: centre)
    ).run()
    #expect(report.targets[0].errors == 0)
    let found = try await withClient(server) { client in
      try await client.send(
        "GEOSEARCH", "bench:points", "FROMLONLAT", CommandEncoding.number(centre.longitude),
        CommandEncoding.number(centre.latitude), "BYRADIUS", "1", "km", "ASC", "COUNT", "10")
    }
    guard case .array(let members) = found, case .bulkString(let first)? = members.first else {
      Issue.record("GEOSEARCH answered \(found)")
      return
    }
    #expect(String(buffer: first) == "p5")
  }

  @Test func addMovesMembersALittle() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(.add, target: server, requests: 1000)
    ).run()
    #expect(report.targets[0].errors == 0)
    let generator = try DatasetGenerator()
    let points = PointSet.realistic(count: 2000, seed: 7, generator: generator)
    let positions = try await memberPositions(count: 2000, on: server)
    var moved = 0
    for (index, position) in positions.enumerated() {
      let metres = distance(position, (points.longitudes[index], points.latitudes[index]))
      // Redis stores 52-bit geohashes: positions come back within a metre of what was sent.
      #expect(metres < 102, "p\(index) is \(metres) m away")
      if metres > 1 { moved += 1 }
    }
    #expect(moved > 100, "only \(moved) members moved")
  }

  /// Each round goes on through the pool where the last one stopped: a second round that sent
  /// the first round's moves again would leave those members where they already were.
  @Test func roundsGoOnWhereTheLastLeftOff() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    var configuration = smallConfiguration(.add, target: server, requests: 200, clients: 1)
    configuration.pipeline = 1
    configuration.rounds = 2
    let report = try await LoadBenchmark(configuration: configuration).run()
    #expect(report.targets[0].rounds.map(\.requests) == [100, 100])
    let points = PointSet.realistic(count: 2000, seed: 7, generator: try DatasetGenerator())
    let moves = RequestPool.moves(1024, key: "bench:points", members: points, seed: 7)
    // Members the first n moves take more than a metre from where they were loaded.
    func displaced(byFirst n: Int) -> Set<Int> {
      var members = Set<Int>()
      for move in moves.prefix(n) {
        let index = Int(move[4].dropFirst())!
        let metres = distance(
          (Double(move[2])!, Double(move[3])!),
          (points.longitudes[index], points.latitudes[index]))
        if metres > 1 { members.insert(index) }
      }
      return members
    }
    #expect(displaced(byFirst: 200).count > displaced(byFirst: 100).count)
    let positions = try await memberPositions(count: 2000, on: server)
    var moved = Set<Int>()
    for (index, position) in positions.enumerated()
    where distance(position, (points.longitudes[index], points.latitudes[index])) > 1 {
      moved.insert(index)
    }
    #expect(moved == displaced(byFirst: 200))
  }

  @Test func countsExactlyTheRequestsAskedForWhateverThePipeline() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(
        .ping, target: server, requests: 1001, points: 0, clients: 3, pipeline: 16)
    ).run()
    #expect(report.targets[0].requests == 1001)
    #expect(report.targets[0].latency.totalCount == 1001)
  }

  @Test func aTimedRunStopsAfterItsDuration() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let configuration = smallConfiguration(
      .ping, target: server, requests: nil, duration: 0.3, points: 0)
    #expect(configuration.requestLimit == nil)
    let report = try await LoadBenchmark(configuration: configuration).run()
    let result = report.targets[0]
    // Windows stop being sent at the deadline; the run ends once the last ones are answered.
    #expect(result.seconds >= 0.3)
    #expect(result.requests > 0)
    #expect(result.requests % 8 == 0, "every window is whole")
    #expect(result.errors == 0)
  }

  @Test func errorRepliesAreCountedAndReported() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let set = try await withClient(server) { try await $0.send("SET", "bench:points", "text") }
    guard case .simpleString("OK") = set else {
      Issue.record("SET answered \(set)")
      return
    }
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(.radius, target: server, requests: 500, points: 0)
    ).run()
    let result = report.targets[0]
    #expect(result.requests == 500)
    #expect(result.errors == 500)
    #expect(report.errors == 500)
    #expect(result.errorSamples.count == 1)
    let text = try #require(result.errorSamples.keys.first)
    #expect(text.hasPrefix("WRONGTYPE"))
    #expect(result.errorSamples[text] == 500)
    #expect(report.table().contains("ERROR REPLIES: \(server) answered 500 of 500 requests"))
    #expect(report.table().contains("500× WRONGTYPE"))
    let json = try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any]
    #expect(json?["ok"] as? Bool == false)
    #expect(json?["errors"] as? Int == 500)
  }

  @Test func nothingListeningIsAConnectError() async throws {
    let (redis, server) = try startRedis()
    redis.stop()
    do {
      _ = try await LoadBenchmark(
        configuration: smallConfiguration(.ping, target: server, points: 0)
      ).run()
    } catch let error as LoadGenError {
      guard case .connectFailed(let name, _) = error else {
        Issue.record("expected a connect failure, got \(error)")
        return
      }
      #expect(name == server.description)
      return
    }
    Issue.record("a run against a closed port succeeded")
  }
}
