import Datasets
import Testing

@testable import Commands

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Numbers in replies, as Redis prints them")
struct FormattingTests {
  /// `ld2string`'s human mode done as Redis does it: printf's `%.17f`, trimmed.
  static func printfHuman(_ value: Double) -> String {
    var text = cFormat("%.17f", value)
    if text.contains(".") {
      while text.hasSuffix("0") { text.removeLast() }
      if text.hasSuffix(".") { text.removeLast() }
    }
    return text == "-0" ? "0" : text
  }

  /// The string-built four-decimal form that the byte writer replaced.
  static func stringFixedPoint4(_ value: Double) -> String {
    if value == 0 { return "0.0000" }
    let scaled = (value * 10000).rounded(.toNearestOrEven)
    guard scaled.magnitude < 9.2e18 else { return cFormat("%.4f", value) }
    let units = Int64(scaled)
    let fraction = String(units.magnitude % 10000)
    return (units < 0 ? "-" : "") + String(units.magnitude / 10000) + "."
      + String(repeating: "0", count: 4 - fraction.count) + fraction
  }

  static func values() -> [Double] {
    var random = SeededGenerator(seed: 17)
    var values: [Double] = [
      0, -0.0, 1, -1, 0.5, 180, -180, 85.05112878, -85.05112878, 1e-5, 4e-6, 3e-6, 1e-300,
      .leastNonzeroMagnitude, 0x1p63, 0x1p64, 1e20, -1e20, 123_456_789.123456789,
      0.99999999999999999, 9.999999999999999e-1, .infinity, -.infinity,
    ]
    for k in 1...22 {
      // Dyadic values with exactly k binary places: ties at the 17th decimal among them.
      for n in [1, 3, 5, 7, 12345, 99999] { values.append(Double(n) / Double(1 << k)) }
    }
    for _ in 0..<200_000 {
      values.append((random.nextDouble() - 0.5) * 360)
      values.append((random.nextDouble() - 0.5) * pow(10, Double(random.nextInt(below: 30) - 12)))
      values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random)))
    }
    return values.filter { !$0.isNaN }
  }

  @Test func humanDoublesEqualPrintf() {
    var mismatches: [String] = []
    for value in Self.values() where humanDouble(value) != Self.printfHuman(value) {
      mismatches.append("\(value.bitPattern): \(humanDouble(value)) vs \(Self.printfHuman(value))")
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
  }

  @Test func fourDecimalDistancesAreUnchanged() {
    var mismatches: [String] = []
    for value in Self.values() where fixedPoint4(value) != Self.stringFixedPoint4(value) {
      mismatches.append("\(value): \(fixedPoint4(value)) vs \(Self.stringFixedPoint4(value))")
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    #expect(fixedPoint4(1234.56785) == "1234.5678")
    #expect(fixedPoint4(0) == "0.0000")
  }
}
