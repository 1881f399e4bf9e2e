import ArgumentParser
import Foundation
import IndexBench

struct BenchIndex: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "index",
    abstract: "Time the in-memory index and its baselines on a realistic dataset.",
    discussion: """
      Builds a dataset of points clustered around real cities (seeded, so runs repeat), then
      times each operation: build, k nearest, radius, viewport, clusters, circles, moves,
      and the brute-force and SQLite R*Tree baselines. Figures are median nanoseconds per
      operation; build is for all points.
      """)

  @Option(help: "Number of points.") var points = 1_000_000
  @Option(help: "Seed of the dataset and the queries.") var seed: UInt64 = 1
  @Option(help: "Query points per operation.") var queries = 5000
  @Option(help: "realistic (clustered around real cities) or uniform (the control).")
  var dataset: Dataset = .realistic

  enum Dataset: String, ExpressibleByArgument, CaseIterable {
    case realistic, uniform
  }
  @Flag(help: "Print one JSON object on the last line.") var json = false

  func run() async throws {
    let log: (String) -> Void = { line in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
    log("generating \(points) \(dataset.rawValue) points (seed \(seed))")
    let workload =
      switch dataset {
      case .realistic: try IndexWorkload.realistic(points: points, queries: queries, seed: seed)
      case .uniform: IndexWorkload.uniform(points: points, queries: queries, seed: seed)
      }
    let report = try IndexBenchmark(workload: workload, log: log).run()
    print(report.table())
    if json { print(report.json()) }
  }
}
