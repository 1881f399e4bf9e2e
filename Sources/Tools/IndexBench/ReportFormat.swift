import Foundation

extension IndexBenchmark.Report {
  /// A table: one operation a line, its median time, and results per query where it matters.
  public func table() -> String {
    var lines = [
      "\(points) points, \(String(format: "%.1f", bytesPerPoint)) bytes per point "
        + "(\(String(format: "%.1f", bytesPerPointBeyondID)) beyond the id)"
    ]
    lines.append("operation              median        results  what")
    for f in figures {
      let time =
        f.nanoseconds >= 1_000_000
        ? String(format: "%9.2f ms", f.nanoseconds / 1e6)
        : String(format: "%9.2f µs", f.nanoseconds / 1e3)
      let results =
        f.results.map { String(format: "%9.1f", $0) } ?? String(repeating: " ", count: 9)
      lines.append(
        "\(f.key.padding(toLength: 20, withPad: " ", startingAt: 0)) \(time) \(results)  \(f.label)"
      )
    }
    for (baseline, name) in [
      ("bruteforce_knn10", "brute force"), ("sqlite_rtree_knn10", "SQLite R*Tree"),
    ] {
      if let b = nanoseconds(baseline), let ours = nanoseconds("knn10") {
        lines.append("k = 10 nearest: \(Int((b / ours).rounded()))× faster than \(name)")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `{"points": N, "ns": {...}, "bytes_per_point": B}` on one line.
  public func json() -> String {
    let ns = figures.map { "\"\($0.key)\": \(Int($0.nanoseconds.rounded()))" }.joined(
      separator: ", ")
    return
      "{\"points\": \(points), \"ns\": {\(ns)}, \"bytes_per_point\": \(String(format: "%.1f", bytesPerPoint)), "
      + "\"bytes_per_point_beyond_id\": \(String(format: "%.1f", bytesPerPointBeyondID))}"
  }
}
