import Foundation
import Histogram

/// Points loaded into one server before timing.
public struct PointLoad: Sendable, Equatable, Codable {
  public var points: Int
  public var seconds: Double
  /// The `cards` workload's cards (or `pins`'s pins), made at the same points.
  public var cards: CardLoad?
}

/// Latency percentiles in microseconds.
public struct LatencySummary: Sendable, Equatable, Codable {
  public var min: Double
  public var p50: Double
  public var p90: Double
  public var p99: Double
  public var p999: Double
  public var max: Double
  public var mean: Double

  enum CodingKeys: String, CodingKey {
    case min, p50, p90, p99
    case p999 = "p99.9"
    case max, mean
  }

  /// The percentiles in the order printed, with their names.
  public var percentiles: [(name: String, value: Double)] {
    [("p50", p50), ("p90", p90), ("p99", p99), ("p99.9", p999), ("max", max)]
  }
}

/// What one server did under one workload, over all rounds.
public struct TargetResult: Sendable {
  public enum Role: String, Sendable, Codable {
    case target, compare
  }

  /// The requests and time of one round.
  public struct Round: Sendable, Equatable {
    public var requests: Int
    public var seconds: Double

    public var throughput: Double { seconds > 0 ? Double(requests) / seconds : 0 }
  }

  public var role: Role
  public var server: ServerAddress
  public var workload: Workload
  /// Error replies.
  public var errors: Int
  /// Error replies by text (the first few distinct texts of each connection).
  public var errorSamples: [String: Int]
  /// Request latencies in nanoseconds, all connections merged.
  public var latency: Histogram<UInt64>
  public var load: PointLoad?
  /// Round by round, in the order run.
  public var rounds: [Round]

  /// Replies received (error replies included), over all rounds.
  public var requests: Int { rounds.reduce(0) { $0 + $1.requests } }
  /// Each round from the start of its first window to its last reply, added up.
  public var seconds: Double { rounds.reduce(0) { $0 + $1.seconds } }

  public init(
    role: Role, server: ServerAddress, workload: Workload, requests: Int, errors: Int,
    errorSamples: [String: Int], seconds: Double, latency: Histogram<UInt64>,
    load: PointLoad? = nil
  ) {
    self.role = role
    self.server = server
    self.workload = workload
    self.rounds = [Round(requests: requests, seconds: seconds)]
    self.errors = errors
    self.errorSamples = errorSamples
    self.latency = latency
    self.load = load
  }

  /// Requests per second.
  public var throughput: Double { seconds > 0 ? Double(requests) / seconds : 0 }

  /// Adds a later round of the same server and workload.
  mutating func add(round other: TargetResult) {
    errors += other.errors
    for (text, count) in other.errorSamples { errorSamples[text, default: 0] += count }
    latency.add(other.latency)
    rounds += other.rounds
  }

  public var summary: LatencySummary {
    func us(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1000 }
    return LatencySummary(
      min: us(latency.min), p50: us(latency.valueAtPercentile(50)),
      p90: us(latency.valueAtPercentile(90)), p99: us(latency.valueAtPercentile(99)),
      p999: us(latency.valueAtPercentile(99.9)), max: us(latency.maxRecorded),
      mean: latency.totalCount > 0 ? latency.mean / 1000 : 0)
  }
}

/// The target's figures divided by the comparison server's.
public struct LoadRatio: Sendable, Equatable, Codable {
  /// Above 1: the target served more requests per second.
  public var throughput: Double
  /// Below 1: the target answered faster at that percentile.
  public var latency: LatencySummary
}

/// One server's workload throughput ÷ its baseline throughput.
public struct BaselineRatio: Sendable, Equatable, Codable {
  public var server: String
  /// Over all rounds: total requests per second of the workload ÷ of the baseline.
  public var throughput: Double
  /// The smallest and largest ratio of a single round.
  public var roundMin: Double
  public var roundMax: Double

  enum CodingKeys: String, CodingKey {
    case server, throughput
    case roundMin = "round_min"
    case roundMax = "round_max"
  }
}

/// The outcome of a `bench load` run.
public struct LoadReport: Sendable {
  public var configuration: LoadConfiguration
  /// The workload: target first, then the comparison server if any.
  public var targets: [TargetResult]
  /// The baseline workload, server for server as `targets`; empty without one.
  public var baselines: [TargetResult]

  public init(
    configuration: LoadConfiguration, targets: [TargetResult], baselines: [TargetResult] = []
  ) {
    self.configuration = configuration
    self.targets = targets
    self.baselines = baselines
  }

  /// Workload ÷ baseline for each server, with a baseline.
  public var baselineRatios: [BaselineRatio] {
    zip(targets, baselines).map { work, base in
      let perRound = zip(work.rounds, base.rounds).map { w, b in
        b.throughput > 0 ? w.throughput / b.throughput : 0
      }
      return BaselineRatio(
        server: work.server.description,
        throughput: base.throughput > 0 ? work.throughput / base.throughput : 0,
        roundMin: perRound.min() ?? 0, roundMax: perRound.max() ?? 0)
    }
  }

  /// Target ÷ compare, with `--compare`.
  public var ratio: LoadRatio? {
    guard targets.count == 2 else { return nil }
    let a = targets[0].summary
    let b = targets[1].summary
    func r(_ x: Double, _ y: Double) -> Double { y > 0 ? x / y : 0 }
    return LoadRatio(
      throughput: r(targets[0].throughput, targets[1].throughput),
      latency: LatencySummary(
        min: r(a.min, b.min), p50: r(a.p50, b.p50), p90: r(a.p90, b.p90), p99: r(a.p99, b.p99),
        p999: r(a.p999, b.p999), max: r(a.max, b.max), mean: r(a.mean, b.mean)))
  }

  /// Error replies, all servers and workloads.
  public var errors: Int { (targets + baselines).reduce(0) { $0 + $1.errors } }

  // MARK: Text

  /// How the requests were made, in a few lines.
  public var header: String {
    let c = configuration
    let p = c.parameters
    var lines = ["workload \(p.workload.rawValue): \(p.commandTemplate)"]
    if let baseline = c.baseline {
      var base = p
      base.workload = baseline
      lines.append("baseline \(baseline.rawValue): \(base.commandTemplate)")
    }
    if c.workloads.contains(where: { ![.ping, .add, .checkin].contains($0) }) {
      lines.append(
        p.center.map { "query centre fixed at \($0)" }
          ?? "query centres: \(grouped(c.poolSize)) drawn like the points (around real cities, seed \(c.seed))"
      )
    }
    var setup = "\(c.clients) clients, pipeline \(c.pipeline)"
    if let limit = c.requestLimit { setup += ", \(grouped(limit)) requests" }
    if let duration = c.duration {
      setup +=
        c.requestLimit == nil
        ? ", \(formatted(duration, decimals: 1)) s" : " or \(formatted(duration, decimals: 1)) s"
    }
    setup += c.baseline == nil ? " per server" : " per server and workload"
    if c.rounds > 1 { setup += ", in \(c.rounds) rounds" }
    if c.points > 0 { setup += "; \(grouped(c.points)) points loaded into \(p.key)" }
    if c.workloads.contains(.checkin) {
      setup += "; \(grouped(c.venues)) venues, a visitor account per connection"
    }
    lines.append(setup)
    for target in targets {
      guard let cards = target.load?.cards else { continue }
      lines.append(
        "\(target.server): \(grouped(cards.cards)) "
          + (cards.command == "PIN.ADD" ? "pins" : "cards") + " at the same points, from "
          + "\(grouped(cards.accounts)) accounts, in \(formatted(cards.seconds, decimals: 2)) s: "
          + "\(grouped(Int(cards.perSecond.rounded()))) \(cards.command)/s")
    }
    return lines.joined(separator: "\n")
  }

  /// The figures as a table, one row per server and workload, then the ratio rows and any error
  /// replies.
  public func table() -> String {
    let withBaseline = !baselines.isEmpty
    var rows: [[String]] = [
      ["server", "role"] + (withBaseline ? ["workload"] : [])
        + ["requests", "errors", "seconds", "req/s"]
        + ["p50", "p90", "p99", "p99.9", "max"].map { "\($0) µs" }
    ]
    for result in targets + baselines {
      let s = result.summary
      rows.append(
        [result.server.description, result.role.rawValue]
          + (withBaseline ? [result.workload.rawValue] : [])
          + [
            grouped(result.requests), grouped(result.errors),
            formatted(result.seconds, decimals: 2),
            grouped(Int(result.throughput.rounded())),
          ] + s.percentiles.map { formatted($0.value, decimals: 1) })
    }
    if let ratio {
      rows.append(
        ["target ÷ compare", ""] + (withBaseline ? [targets[0].workload.rawValue] : [])
          + ["", "", "", formatted(ratio.throughput, decimals: 2) + "×"]
          + ratio.latency.percentiles.map { formatted($0.value, decimals: 2) + "×" })
    }
    let textColumns = withBaseline ? 3 : 2
    var lines = [header, ""]
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max()! }
    for row in rows {
      lines.append(
        row.enumerated().map { column, cell in
          let pad = String(repeating: " ", count: widths[column] - cell.count)
          return column < textColumns ? cell + pad : pad + cell
        }.joined(separator: "  "))
    }
    if ratio != nil {
      lines.append(
        "(throughput ratio above 1: the target served more; latency ratios below 1: it answered faster)"
      )
    }
    if let baseline = configuration.baseline {
      let workload = configuration.parameters.workload.rawValue
      lines.append("")
      for ratio in baselineRatios {
        var line =
          "\(workload) ÷ \(baseline.rawValue) on \(ratio.server): "
          + formatted(ratio.throughput, decimals: 3) + "× the throughput"
        if configuration.rounds > 1 {
          line +=
            " (single rounds \(formatted(ratio.roundMin, decimals: 3))–"
            + "\(formatted(ratio.roundMax, decimals: 3))×)"
        }
        lines.append(line)
      }
    }
    for result in targets + baselines where result.errors > 0 {
      lines.append("")
      lines.append(
        "ERROR REPLIES: \(result.server) answered \(grouped(result.errors)) of "
          + "\(grouped(result.requests)) requests"
          + (withBaseline ? " of \(result.workload.rawValue)" : "") + " with an error:")
      for (text, count) in result.errorSamples.sorted(by: { $0.value > $1.value }) {
        lines.append("  \(grouped(count))× \(text)")
      }
    }
    return lines.joined(separator: "\n")
  }

  // MARK: JSON

  struct JSONTarget: Codable {
    var role: TargetResult.Role
    var server: String
    var workload: String
    var requests: Int
    var errors: Int
    var errorSamples: [String: Int]
    var seconds: Double
    var throughput: Double
    var latencyUs: LatencySummary
    var load: PointLoad?
    /// Requests per second of each round, in the order run.
    var roundThroughputs: [Double]

    enum CodingKeys: String, CodingKey {
      case role, server, workload, requests, errors, seconds, throughput, load
      case roundThroughputs = "round_throughputs"
      case errorSamples = "error_samples"
      case latencyUs = "latency_us"
    }
  }

  struct JSONReport: Codable {
    var workload: String
    var command: String
    var clients: Int
    var pipeline: Int
    var requestLimit: Int?
    var durationLimit: Double?
    var points: Int
    var key: String
    var seed: UInt64
    var center: [Double]?
    var baseline: String?
    var rounds: Int
    var targets: [JSONTarget]
    var ratio: LoadRatio?
    var baselines: [JSONTarget]
    var baselineRatios: [BaselineRatio]
    var errors: Int
    var ok: Bool

    enum CodingKeys: String, CodingKey {
      case workload, command, clients, pipeline, points, key, seed, center, baseline, rounds
      case targets, ratio, baselines, errors, ok
      case baselineRatios = "baseline_ratios"
      case requestLimit = "request_limit"
      case durationLimit = "duration_limit"
    }
  }

  /// One JSON object on one line: the run's settings, each server's figures (latencies in
  /// microseconds), the ratio with a comparison server, with a baseline its figures and the
  /// ratios workload ÷ baseline, and `ok`, false when any reply was an error.
  public func json() -> String {
    let c = configuration
    func round(_ value: Double, _ decimals: Double) -> Double {
      let scale = Foundation.pow(10, decimals)
      return (value * scale).rounded() / scale
    }
    func rounded(_ s: LatencySummary) -> LatencySummary {
      LatencySummary(
        min: round(s.min, 3), p50: round(s.p50, 3), p90: round(s.p90, 3), p99: round(s.p99, 3),
        p999: round(s.p999, 3), max: round(s.max, 3), mean: round(s.mean, 3))
    }
    func target(_ result: TargetResult) -> JSONTarget {
      JSONTarget(
        role: result.role, server: result.server.description, workload: result.workload.rawValue,
        requests: result.requests, errors: result.errors, errorSamples: result.errorSamples,
        seconds: round(result.seconds, 6), throughput: round(result.throughput, 1),
        latencyUs: rounded(result.summary),
        load: result.load.map { PointLoad(points: $0.points, seconds: round($0.seconds, 3)) },
        roundThroughputs: result.rounds.map { round($0.throughput, 1) })
    }
    let report = JSONReport(
      workload: c.parameters.workload.rawValue, command: c.parameters.commandTemplate,
      clients: c.clients, pipeline: c.pipeline, requestLimit: c.requestLimit,
      durationLimit: c.duration, points: c.points, key: c.parameters.key, seed: c.seed,
      center: c.parameters.center.map { [$0.longitude, $0.latitude] },
      baseline: c.baseline?.rawValue, rounds: c.rounds, targets: targets.map(target),
      ratio: ratio.map {
        LoadRatio(
          throughput: round($0.throughput, 4),
          latency: LatencySummary(
            min: round($0.latency.min, 4), p50: round($0.latency.p50, 4),
            p90: round($0.latency.p90, 4), p99: round($0.latency.p99, 4),
            p999: round($0.latency.p999, 4), max: round($0.latency.max, 4),
            mean: round($0.latency.mean, 4)))
      },
      baselines: baselines.map(target),
      baselineRatios: baselineRatios.map {
        BaselineRatio(
          server: $0.server, throughput: round($0.throughput, 4), roundMin: round($0.roundMin, 4),
          roundMax: round($0.roundMax, 4))
      },
      errors: errors, ok: errors == 0)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}

/// 1234567 → "1,234,567".
func grouped(_ value: Int) -> String {
  let digits = String(value.magnitude)
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
    text.append(digit)
  }
  return value < 0 ? "-" + text : text
}

/// A number with exactly `decimals` decimals.
func formatted(_ value: Double, decimals: Int) -> String {
  String(format: "%.\(decimals)f", value)
}
