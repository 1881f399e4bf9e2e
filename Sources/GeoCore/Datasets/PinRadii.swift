import Foundation

/// Photo pins' viewing radii for the benchmarks: 10 m to 1 km on a log scale (most pins are
/// seen from close by, a few from across a park), seeded, whole metres as PIN.ADD keeps them.
/// The in-process (`bench pins`) and over-the-wire (`bench load --workload pins`) runs draw the
/// same.
public enum PinRadii {
  public static func draw(count: Int, seed: UInt64) -> [Double] {
    var rng = SeededGenerator(seed: seed, stream: 0x5049_4E53)  // "PINS"
    let range = Foundation.log(10.0)...Foundation.log(1000.0)
    return (0..<count).map { _ in exp(Double.random(in: range, using: &rng)).rounded() }
  }
}
