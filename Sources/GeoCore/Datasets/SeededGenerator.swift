/// A seeded pseudo-random generator: xoshiro256** (Blackman and Vigna, 2018), its state filled
/// from the seed by SplitMix64 as the authors recommend. Every number it produces, and every
/// helper below, is pure integer and IEEE arithmetic written out here, so a seed gives the same
/// sequence on every machine and every Swift version. (The standard library's
/// `Double.random(in:using:)` and `Int.random(in:using:)` are deliberately not used: their
/// algorithms are not specified and may change.)
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
  private var s0: UInt64
  private var s1: UInt64
  private var s2: UInt64
  private var s3: UInt64

  public init(seed: UInt64) {
    var x = seed
    func splitMix() -> UInt64 {
      x &+= 0x9E37_79B9_7F4A_7C15
      var z = x
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    // SplitMix64 never yields four zero words in a row, so the state is never all zero.
    s0 = splitMix()
    s1 = splitMix()
    s2 = splitMix()
    s3 = splitMix()
  }

  /// A generator for a named sub-stream of `seed`, so that, say, a dataset and its query points
  /// drawn with the same seed are still independent.
  public init(seed: UInt64, stream: UInt64) {
    self.init(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
  }

  @inlinable
  static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 &- k)) }

  public mutating func next() -> UInt64 {
    let result = Self.rotl(s1 &* 5, 7) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = Self.rotl(s3, 45)
    return result
  }

  /// Uniform in [0, 1): the top 53 bits as a multiple of 2⁻⁵³.
  public mutating func nextDouble() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// Uniform in (0, 1]: never zero, so its logarithm is finite.
  public mutating func nextOpenDouble() -> Double {
    Double((next() >> 11) + 1) * 0x1.0p-53
  }

  /// Uniform in 0..<bound, without bias (Lemire's multiply-and-reject).
  ///
  /// - Precondition: `bound > 0`.
  public mutating func next(below bound: UInt64) -> UInt64 {
    precondition(bound > 0, "bound must be positive")
    var m = next().multipliedFullWidth(by: bound)
    if m.low < bound {
      let threshold = (0 &- bound) % bound
      while m.low < threshold {
        m = next().multipliedFullWidth(by: bound)
      }
    }
    return m.high
  }

  /// Uniform in 0..<bound.
  ///
  /// - Precondition: `bound > 0`.
  public mutating func nextInt(below bound: Int) -> Int {
    precondition(bound > 0, "bound must be positive")
    return Int(next(below: UInt64(bound)))
  }
}
