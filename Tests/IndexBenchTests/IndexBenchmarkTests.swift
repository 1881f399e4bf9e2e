import Foundation
import IndexBench
import Testing

/// The benchmark runs end to end on a small realistic dataset and reports every figure the
/// JSON contract names, each a positive number of nanoseconds.
@Suite struct IndexBenchmarkTests {
  @Test func reportsEveryFigure() throws {
    let workload = try IndexWorkload.realistic(points: 20_000, queries: 300, seed: 3)
    let report = IndexBenchmark(workload: workload).run()
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
    #expect(json["points"] as? Int == 20_000)
    let ns = try #require(json["ns"] as? [String: Any])
    for key in [
      "build", "knn1", "knn10", "knn100", "radius1km", "radius10km", "viewport", "clusters_z3",
      "clusters_z12", "circles_at", "move", "bruteforce_knn10", "sqlite_rtree_knn10",
    ] {
      let value = ns[key] as? Int
      #expect(value != nil && value! > 0, "\(key) missing or not positive")
    }
    let bytes = try #require(json["bytes_per_point"] as? Double)
    #expect(bytes > 40 && bytes < 200)
    // The index must beat the brute force it is measured against, even on 20,000 points.
    #expect(report.nanoseconds("knn10")! < report.nanoseconds("bruteforce_knn10")!)
    #expect(report.table().contains("knn10"))
  }
}
