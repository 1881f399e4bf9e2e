import Geodesy
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct DegreeTrigonometryTests {
  /// Whole, decimal and random angles one and a half turns each way, against the long-double
  /// library where there is one, else against the C library's doubles.
  @Test func closeToTheTrueValues() {
    var rng = SplitMix64(seed: 11)
    var worst = 0.0
    for i in 0..<400_000 {
      let d: Double =
        switch i % 4 {
        case 0: Double.random(in: -540...540, using: &rng)
        case 1: Double(Int.random(in: -1_800_000...1_800_000, using: &rng)) / 1e4
        case 2: Double(Int.random(in: -90_000_000...90_000_000, using: &rng)) / 1e6
        default: Double(Int.random(in: -360...360, using: &rng)) + [0, 0.5, 1e-9, -1e-9][i / 4 % 4]
        }
      let (s, c) = sinCos(degrees: d)
      #expect(s.magnitude <= 1 && c.magnitude <= 1)
      worst = max(worst, Self.error(s, c, degrees: d))
    }
    #if arch(x86_64) && !os(Windows)
      // Measured: 1.14 units of 2⁻⁵³; `sin(d · π/180)` itself is off by up to 2.6.
      #expect(worst <= 1.5, "worst error \(worst) × 2⁻⁵³")
    #else
      #expect(worst <= 4, "worst difference from the C library \(worst) × 2⁻⁵³")
    #endif
  }

  /// The error in units of 2⁻⁵³ (half an ulp of 1), the scale at which a unit vector's
  /// components are compared.
  static func error(_ s: Double, _ c: Double, degrees: Double) -> Double {
    // The remainder is exact, and keeps the reference's own rounding small.
    let d = degrees.truncatingRemainder(dividingBy: 360)
    #if arch(x86_64) && !os(Windows)
      let r = Float80(d) * (Float80.pi / 180)
      return Double(max(abs(Float80(s) - sinl(r)), abs(Float80(c) - cosl(r))) * 0x1p53)
    #else
      let r = d * (Double.pi / 180)
      return max(abs(s - sin(r)), abs(c - cos(r))) * 0x1p53
    #endif
  }

  @Test func quarterTurnsAreExact() {
    let expected: [(Double, Double, Double)] = [
      (0, 0, 1), (90, 1, 0), (180, 0, -1), (270, -1, 0), (360, 0, 1), (-90, -1, 0),
      (-180, 0, -1), (-270, 1, 0), (-360, 0, 1),
    ]
    for (d, s, c) in expected {
      let got = sinCos(degrees: d)
      #expect(got.sin == s && got.cos == c, "\(d)°: \(got)")
    }
  }

  @Test func symmetric() {
    var rng = SplitMix64(seed: 12)
    for _ in 0..<10_000 {
      let d = Double.random(in: -360...360, using: &rng)
      let (s, c) = sinCos(degrees: d)
      let (ns, nc) = sinCos(degrees: -d)
      #expect(ns == -s && nc == c, "\(d)°")
    }
  }

  @Test func manyTurnsHugeAndNaN() {
    for d in [720.5, -1e6 - 0.25, 0x1p40 - 0.5, 0x1p40] {
      let (s, c) = sinCos(degrees: d)
      #expect(Self.error(s, c, degrees: d) <= 1.5, "\(d)°")
    }
    let nan = sinCos(degrees: .nan)
    #expect(nan.sin.isNaN && nan.cos.isNaN)
    let huge = sinCos(degrees: 1e300)
    #expect(huge.sin.magnitude <= 1 && huge.cos.magnitude <= 1)
  }
}
