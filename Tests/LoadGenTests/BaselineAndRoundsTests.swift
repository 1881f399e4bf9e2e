import Foundation
import Synchronization
import Testing

@testable import LoadGen

/// `--baseline` (a second workload on every server, for workload ÷ baseline) and `--rounds`
/// (measurements split into rounds, odd rounds run backwards), against two redis-servers.
@Suite struct BaselineAndRoundsTests {
  @Test func budgetsSplitEvenlyOverRounds() {
    let counted = LoadConfiguration(requests: 1001, rounds: 3)
    #expect((0..<3).map { counted.budget(round: $0).requests } == [334, 334, 333])
    #expect(counted.budget(round: 0).duration == nil)
    let timed = LoadConfiguration(duration: 6, rounds: 4)
    #expect(timed.budget(round: 3).requests == nil)
    #expect(timed.budget(round: 3).duration == 1.5)
  }

  @Test func badRoundsAndBaselinesAreRefused() {
    #expect(throws: LoadGenError.invalidArgument("--rounds must be at least 1")) {
      try LoadConfiguration(rounds: 0).validate()
    }
    #expect(
      throws: LoadGenError.invalidArgument(
        "--requests must be at least --rounds (one request per round)")
    ) { try LoadConfiguration(requests: 2, rounds: 3).validate() }
    #expect(throws: LoadGenError.invalidArgument("--baseline must differ from --workload")) {
      try LoadConfiguration(baseline: .radius).validate()
    }
    // A ping run with a searching baseline needs points, as the search alone would.
    let pingAgainstRadius = LoadConfiguration(
      parameters: WorkloadParameters(workload: .ping), baseline: .radius)
    #expect(pingAgainstRadius.points == LoadConfiguration.defaultPoints)
  }

  @Test func baselineRunsOnEveryServerRoundByRoundAndGivesRatios() async throws {
    let (first, target) = try startRedis()
    let (second, compare) = try startRedis()
    defer {
      first.stop()
      second.stop()
    }
    let lines = Mutex<[String]>([])
    let configuration = smallConfiguration(
      .radius, target: target, compare: compare, requests: 1500, baseline: .ping, rounds: 3)
    let report = try await LoadBenchmark(
      configuration: configuration, log: { line in lines.withLock { $0.append(line) } }
    ).run()

    // Odd rounds run the even rounds' order backwards.
    let forwards = [
      "radius → \(target)", "ping → \(target)", "radius → \(compare)", "ping → \(compare)",
    ]
    let expected = forwards + forwards.reversed() + forwards
    let measured = lines.withLock { $0 }.filter { $0.contains(" → ") }
    #expect(measured.count == expected.count)
    for (line, start) in zip(measured, expected) {
      #expect(line.hasPrefix(start), "\(line) should start with \(start)")
    }
    #expect(measured.first?.hasSuffix("round 1 of 3") == true)
    #expect(measured.last?.hasSuffix("round 3 of 3") == true)

    #expect(report.targets.map(\.workload) == [.radius, .radius])
    #expect(report.baselines.map(\.workload) == [.ping, .ping])
    #expect(report.targets.map(\.server) == [target, compare])
    #expect(report.baselines.map(\.server) == [target, compare])
    #expect(report.baselines.map(\.role) == [.target, .compare])
    for result in report.targets + report.baselines {
      #expect(result.rounds.map(\.requests) == [500, 500, 500])
      #expect(result.requests == 1500 && result.errors == 0)
      #expect(result.latency.totalCount == 1500)
      #expect(abs(result.seconds - result.rounds.reduce(0) { $0 + $1.seconds }) < 1e-9)
      expectMonotone(result.summary)
    }
    #expect(report.targets.allSatisfy { $0.load?.points == 2000 })
    #expect(report.baselines.allSatisfy { $0.load == nil })

    let ratios = report.baselineRatios
    #expect(ratios.map(\.server) == [target.description, compare.description])
    for (ratio, (work, base)) in zip(ratios, zip(report.targets, report.baselines)) {
      let expectedRatio = work.throughput / base.throughput
      #expect(abs(ratio.throughput - expectedRatio) <= 1e-9 * expectedRatio)
      let perRound = zip(work.rounds, base.rounds).map { $0.throughput / $1.throughput }
      #expect(ratio.roundMin == perRound.min() && ratio.roundMax == perRound.max())
      #expect(ratio.roundMin > 0 && ratio.roundMin <= ratio.roundMax)
    }

    let table = report.table()
    #expect(table.contains("baseline ping: PING"))
    #expect(table.contains("per server and workload, in 3 rounds"))
    #expect(table.contains("radius ÷ ping on \(target): "))
    #expect(table.contains("radius ÷ ping on \(compare): "))
    #expect(table.contains("(single rounds "))

    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
    #expect(object["baseline"] as? String == "ping")
    #expect(object["rounds"] as? Int == 3)
    let baselines = try #require(object["baselines"] as? [[String: Any]])
    #expect(baselines.compactMap { $0["workload"] as? String } == ["ping", "ping"])
    for entry in baselines {
      #expect((entry["round_throughputs"] as? [Double])?.count == 3)
    }
    let jsonRatios = try #require(object["baseline_ratios"] as? [[String: Any]])
    #expect(jsonRatios.count == 2)
    #expect(jsonRatios.allSatisfy { ($0["throughput"] as? Double ?? 0) > 0 })
    #expect(jsonRatios.allSatisfy { $0["round_min"] != nil && $0["round_max"] != nil })
  }

  @Test func withoutABaselineNothingIsAdded() async throws {
    let (redis, server) = try startRedis()
    defer { redis.stop() }
    let report = try await LoadBenchmark(
      configuration: smallConfiguration(.ping, target: server, points: 0, rounds: 2)
    ).run()
    #expect(report.baselines.isEmpty && report.baselineRatios.isEmpty)
    #expect(report.targets[0].rounds.map(\.requests) == [1500, 1500])
    #expect(!report.table().contains("÷"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
    #expect((object["baselines"] as? [Any])?.isEmpty == true)
  }
}
