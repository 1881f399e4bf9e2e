import Testing

@testable import Datasets

@Suite struct SeededGeneratorTests {
  /// xoshiro256** seeded through SplitMix64, as in the reference implementation (and Rust's
  /// `rand_xoshiro::Xoshiro256StarStar::seed_from_u64`): pins the sequence for good.
  @Test func matchesReferenceSequence() {
    var zero = SeededGenerator(seed: 0)
    #expect(
      (0..<4).map { _ in zero.next() } == [
        0x99ec_5f36_cb75_f2b4, 0xbf6e_1f78_4956_452a, 0x1a5f_849d_4933_e6e0, 0x6aa5_94f1_262d_2d2c,
      ])
    var answer = SeededGenerator(seed: 42)
    #expect(
      (0..<4).map { _ in answer.next() } == [
        0x1578_0b2e_0c2e_c716, 0x6104_d986_6d11_3a7e, 0xae17_5332_39e4_99a1, 0xecb8_ad47_03b3_60a1,
      ])
  }

  @Test func streamsDiffer() {
    var a = SeededGenerator(seed: 7)
    var b = SeededGenerator(seed: 7, stream: 1)
    #expect((0..<8).map { _ in a.next() } != (0..<8).map { _ in b.next() })
  }

  @Test func doublesStayInRange() {
    var rng = SeededGenerator(seed: 3)
    var sum = 0.0
    let n = 100_000
    for _ in 0..<n {
      let x = rng.nextDouble()
      let y = rng.nextOpenDouble()
      #expect(x >= 0 && x < 1)
      #expect(y > 0 && y <= 1)
      sum += x
    }
    // Mean of U(0,1): 1/2, standard error 1/sqrt(12n).
    #expect(abs(sum / Double(n) - 0.5) < 5 / (12.0 * Double(n)).squareRoot())
  }

  @Test func boundedIntegersAreUniform() {
    var rng = SeededGenerator(seed: 11)
    let bound = 7
    let n = 70_000
    var counts = [Int](repeating: 0, count: bound)
    for _ in 0..<n { counts[rng.nextInt(below: bound)] += 1 }
    let expected = Double(n) / Double(bound)
    let chiSquare = counts.reduce(0.0) {
      $0 + (Double($1) - expected) * (Double($1) - expected) / expected
    }
    // 6 degrees of freedom: P(χ² > 22.46) = 0.001.
    #expect(chiSquare < 22.46)
    // A bound that is not a power of two and close to 2^64 still stays below it.
    let big: UInt64 = 0xC000_0000_0000_0001
    for _ in 0..<1000 { #expect(rng.next(below: big) < big) }
    #expect(rng.next(below: 1) == 0)
  }
}
