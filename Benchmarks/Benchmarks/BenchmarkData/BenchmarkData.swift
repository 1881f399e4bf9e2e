import Datasets
import Foundation

/// What both benchmark suites share: how many points, from which seed, drawn by which generator.
public enum BenchmarkData {
  /// The number of points: `CARDATLAS_BENCH_POINTS`, default 1,000,000.
  public static let pointCount: Int = {
    let name = "CARDATLAS_BENCH_POINTS"
    guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else {
      return 1_000_000
    }
    guard let n = Int(text.filter { $0 != "_" && $0 != "," }), n > 0 else {
      fatalError("\(name) must be a positive whole number, got \"\(text)\"")
    }
    return n
  }()

  /// The seed of every dataset and query set (`cardatlas-bench index` and `bench load` default
  /// to 1 as well).
  public static let seed: UInt64 = 1

  /// The generator over `data/cities.csv`, or why it could not be made (no data folder: set
  /// `CARDATLAS_DATA`). Setup closures call `requireData()` so that this surfaces as a benchmark
  /// error rather than a crash.
  public static let generatorResult = Result { () throws(DatasetError) in
    try DatasetGenerator()
  }

  public static func requireData() throws { _ = try generatorResult.get() }

  public static var generator: DatasetGenerator {
    switch generatorResult {
    case .success(let generator): return generator
    case .failure(let error): fatalError("\(error)")
    }
  }
}
