import Foundation
import IndexBench
import Testing

/// The benchmark runs end to end on a small realistic dataset and reports every figure the
/// JSON contract names, each a positive number of nanoseconds.
@Suite struct IndexBenchmarkTests {
  @Test func reportsEveryFigure() throws {
    let workload = try IndexWorkload.realistic(points: 20_000, queries: 300, seed: 3)
    let report = try IndexBenchmark(workload: workload).run()
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
    // Queries from the densest city find points there; a world view finds clusters.
    let figures = Dictionary(uniqueKeysWithValues: report.figures.map { ($0.key, $0) })
    #expect((figures["radius10km"]?.results ?? 0) > 1)
    #expect((figures["clusters_z3"]?.results ?? 0) > 1)
    #expect(report.table().contains("knn10"))
  }
}
