import Datasets
import Testing

@testable import Commands

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Reading numbers as Redis does")
struct NumberParsingTests {
  static func strtodValue(_ text: String) -> Double? {
    text.withCString { start in
      var end: UnsafeMutablePointer<CChar>? = nil
      let value = strtod(start, &end)
      return end.map { UnsafePointer($0) } == start + text.utf8.count ? value : nil
    }
  }

  static func plain(_ text: String) -> Double? {
    Array(text.utf8).withUnsafeBytes { plainDecimal($0) }
  }

  /// The fast path gives strtod's bits for every plain decimal it takes, and declines the rest.
  @Test func plainDecimalsEqualStrtod() throws {
    var random = SeededGenerator(seed: 42)
    var taken = 0
    for n in 0..<200_000 {
      let digits = 1 + random.nextInt(below: 30)
      var text = n % 2 == 0 ? "-" : ""
      let point = random.nextInt(below: digits + 2)
      for d in 0..<digits {
        if d == point { text += "." }
        text += String(random.nextInt(below: 10))
      }
      if point == digits { text += "." }
      guard let fast = Self.plain(text) else {
        #expect(digits > 15, "declined \(text)")
        continue
      }
      taken += 1
      let slow = try #require(Self.strtodValue(text))
      #expect(fast.bitPattern == slow.bitPattern, "\(text): \(fast) against strtod's \(slow)")
    }
    #expect(taken > 90_000)
  }

  @Test func anythingElseIsLeftToStrtod() {
    for text in ["", "-", ".", "1e5", "+1", " 1", "1 ", "0x10", "inf", "nan", "1.2.3", "1,5"] {
      #expect(Self.plain(text) == nil, "\(text)")
    }
    // Long digit strings, which must not overflow on the way to strtod.
    for text in [
      "1234567890123456", "-99999999999999999999999", String(repeating: "9", count: 400),
      "0." + String(repeating: "1", count: 40),
    ] {
      #expect(Self.plain(text) == nil, "\(text)")
    }
    #expect(Self.plain("123456789012345") == 123_456_789_012_345)
    #expect(Self.plain("-0")?.sign == .minus)
    #expect(Self.plain(".5") == 0.5)
    #expect(Self.plain("5.") == 5)
    #expect(Self.plain("139.6917") == 139.6917)
  }
}
