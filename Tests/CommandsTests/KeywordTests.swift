import Testing

@testable import Commands

@Suite("Command and option names, matched ignoring ASCII case")
struct KeywordTests {
  /// What `strcasecmp` compares: each byte with its ASCII capital lower-cased.
  static func lowered(_ bytes: [UInt8]) -> [UInt8] {
    bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
  }

  static func keyword(_ bytes: [UInt8]) -> Keyword {
    bytes.withUnsafeBytes { Keyword(lowercasing: $0) }
  }

  @Test func everyByteValueInEveryPositionLowersAsStrcasecmpDoes() {
    for position in 0..<Keyword.maximumLength {
      for value in 0...255 {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: Keyword.maximumLength)
        bytes[position] = UInt8(value)
        #expect(Self.keyword(bytes) == Self.keyword(Self.lowered(bytes)))
        var other = Self.lowered(bytes)
        other[position] = UInt8((value + 1) % 256)
        if Self.lowered(bytes) != Self.lowered(other) {
          #expect(Self.keyword(bytes) != Self.keyword(other))
        }
      }
    }
  }

  @Test func randomNamesMatchExactlyWhenTheirLowerCasesDo() {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let count = Int.random(in: 0...Keyword.maximumLength, using: &rng)
      // Letters around the capitals' edges ("@", "[", "`", "{") and high bytes.
      let alphabet: [UInt8] = [64, 65, 77, 90, 91, 96, 97, 122, 123, 0xC1, 0xDA, 0xE1, 0]
      let a = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
      var b = a
      if !b.isEmpty && Bool.random(using: &rng) {
        b[Int.random(in: 0..<b.count, using: &rng)] = alphabet.randomElement(using: &rng)!
      }
      #expect((Self.keyword(a) == Self.keyword(b)) == (Self.lowered(a) == Self.lowered(b)))
    }
  }

  @Test func lengthTellsNamesApartAndLongArgumentsMatchNoName() {
    #expect(Self.keyword([]) != Self.keyword([0]))
    #expect(Self.keyword(Array("get".utf8)) != Self.keyword(Array("get\0".utf8)))
    #expect(Self.keyword(Array("GeoSearch".utf8)) == Keyword("geosearch"))
    let long = [UInt8](repeating: 97, count: Keyword.maximumLength + 1)
    #expect(Self.keyword(long) != Self.keyword(Array(long.dropLast())))
  }
}
