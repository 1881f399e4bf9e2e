import Foundation
import Histogram

/// Points loaded into one server before timing.
public struct PointLoad: Sendable, Equatable, Codable {
  public var points: Int
  public var seconds: Double
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

/// What one server did under the workload.
public struct TargetResult: Sendable {
  public enum Role: String, Sendable, Codable {
    case target, compare
  }

  public var role: Role
  public var server: ServerAddress
  /// Replies received (error replies included).
  public var requests: Int
  /// Error replies.
  public var errors: Int
  /// Error replies by text (the first few distinct texts of each connection).
  public var errorSamples: [String: Int]
  /// From the start of the first window to the last reply.
  public var seconds: Double
  /// Request latencies in nanoseconds, all connections merged.
  public var latency: Histogram<UInt64>
  public var load: PointLoad?

  public init(
    role: Role, server: ServerAddress, requests: Int, errors: Int, errorSamples: [String: Int],
    seconds: Double, latency: Histogram<UInt64>, load: PointLoad? = nil
  ) {
    self.role = role
    self.server = server
    self.requests = requests
    self.errors = errors
    self.errorSamples = errorSamples
    self.seconds = seconds
    self.latency = latency
    self.load = load
  }

  /// Requests per second.
  public var throughput: Double { seconds > 0 ? Double(requests) / seconds : 0 }

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

/// The outcome of a `bench load` run.
public struct LoadReport: Sendable {
  public var configuration: LoadConfiguration
  /// Target first, then the comparison server if any.
  public var targets: [TargetResult]

  public init(configuration: LoadConfiguration, targets: [TargetResult]) {
    self.configuration = configuration
    self.targets = targets
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

  /// Error replies, all servers.
  public var errors: Int { targets.reduce(0) { $0 + $1.errors } }

  // MARK: Text

  /// How the requests were made, in a line or three.
  public var header: String {
    let c = configuration
    let p = c.parameters
    var lines = ["workload \(p.workload.rawValue): \(p.commandTemplate)"]
    if p.workload != .ping && p.workload != .add {
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
    setup += " per server"
    if c.points > 0 { setup += "; \(grouped(c.points)) points loaded into \(p.key)" }
    lines.append(setup)
    return lines.joined(separator: "\n")
  }

  /// The figures as a table, one row per server, then the ratio row and any error replies.
  public func table() -> String {
    var rows: [[String]] = [
      ["server", "role", "requests", "errors", "seconds", "req/s"]
        + ["p50", "p90", "p99", "p99.9", "max"].map { "\($0) µs" }
    ]
    for target in targets {
      let s = target.summary
      rows.append(
        [
          target.server.description, target.role.rawValue, grouped(target.requests),
          grouped(target.errors), formatted(target.seconds, decimals: 2),
          grouped(Int(target.throughput.rounded())),
        ] + s.percentiles.map { formatted($0.value, decimals: 1) })
    }
    if let ratio {
      rows.append(
        ["target ÷ compare", "", "", "", "", formatted(ratio.throughput, decimals: 2) + "×"]
          + ratio.latency.percentiles.map { formatted($0.value, decimals: 2) + "×" })
    }
    var lines = [header, ""]
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max()! }
    for row in rows {
      lines.append(
        row.enumerated().map { column, cell in
          let pad = String(repeating: " ", count: widths[column] - cell.count)
          return column < 2 ? cell + pad : pad + cell
        }.joined(separator: "  "))
    }
    if ratio != nil {
      lines.append(
        "(throughput ratio above 1: the target served more; latency ratios below 1: it answered faster)"
      )
    }
    for target in targets where target.errors > 0 {
      lines.append("")
      lines.append(
        "ERROR REPLIES: \(target.server) answered \(grouped(target.errors)) of "
          + "\(grouped(target.requests)) requests with an error:")
      for (text, count) in target.errorSamples.sorted(by: { $0.value > $1.value }) {
        lines.append("  \(grouped(count))× \(text)")
      }
    }
    return lines.joined(separator: "\n")
  }

  // MARK: JSON

  struct JSONTarget: Codable {
    var role: TargetResult.Role
    var server: String
    var requests: Int
    var errors: Int
    var errorSamples: [String: Int]
    var seconds: Double
    var throughput: Double
    var latencyUs: LatencySummary
    var load: PointLoad?

    enum CodingKeys: String, CodingKey {
      case role, server, requests, errors, seconds, throughput, load
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
    var targets: [JSONTarget]
    var ratio: LoadRatio?
    var errors: Int
    var ok: Bool

    enum CodingKeys: String, CodingKey {
      case workload, command, clients, pipeline, points, key, seed, center, targets, ratio
      case errors, ok
      case requestLimit = "request_limit"
      case durationLimit = "duration_limit"
    }
  }

  /// One JSON object on one line: the run's settings, each server's figures (latencies in
  /// microseconds), the ratio with a comparison server, and `ok`, false when any reply was an
  /// error.
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
    let report = JSONReport(
      workload: c.parameters.workload.rawValue, command: c.parameters.commandTemplate,
      clients: c.clients, pipeline: c.pipeline, requestLimit: c.requestLimit,
      durationLimit: c.duration, points: c.points, key: c.parameters.key, seed: c.seed,
      center: c.parameters.center.map { [$0.longitude, $0.latitude] },
      targets: targets.map {
        JSONTarget(
          role: $0.role, server: $0.server.description, requests: $0.requests, errors: $0.errors,
          errorSamples: $0.errorSamples, seconds: round($0.seconds, 6),
          throughput: round($0.throughput, 1), latencyUs: rounded($0.summary),
          load: $0.load.map { PointLoad(points: $0.points, seconds: round($0.seconds, 3)) })
      },
      ratio: ratio.map {
        LoadRatio(
          throughput: round($0.throughput, 4),
          latency: LatencySummary(
            min: round($0.latency.min, 4), p50: round($0.latency.p50, 4),
            p90: round($0.latency.p90, 4), p99: round($0.latency.p99, 4),
            p999: round($0.latency.p999, 4), max: round($0.latency.max, 4),
            mean: round($0.latency.mean, 4)))
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
