import Foundation
import Testing

@testable import Cards

/// A filter compares an ASCII value in place (`CardFilter.asciiMatch`): it must answer what
/// comparing the Foundation-folded texts answers.
@Suite struct CardFilterTests {
  @Test("in-place ASCII comparison equals folding both texts, for random values")
  func asciiMatchEqualsFolding() {
    var generator = SystemRandomNumberGenerator()
    let pieces = [
      "acme", "ACME", "Acme", " ", "\t", "\n", "a", "B", "-", "é", "Ç", "^", "~", "`", "",
    ]
    func random() -> String {
      (0..<Int.random(in: 0...4, using: &generator)).map { _ in
        pieces.randomElement(using: &generator)!
      }.joined()
    }
    for _ in 0..<5_000 {
      let (value, wanted) = (random(), random())
      let normalized = CardFilter.normalize(wanted)
      let folded = CardFilter.normalize(value) == normalized
      guard normalized.utf8.allSatisfy({ $0 < 0x80 }) else { continue }
      if let match = CardFilter.asciiMatch(value, normalized) {
        #expect(match == folded, "\(value.debugDescription) against \(wanted.debugDescription)")
      } else {
        #expect(value.utf8.contains { $0 >= 0x80 })
      }
    }
  }

  @Test("ASCII values are normalized as Foundation folds and trims them: every byte, random values")
  func asciiNormalizeEqualsFoundation() {
    for byte in UInt8(0)..<0x80 {
      let text = "a" + String(UnicodeScalar(byte)) + "Z"
      for value in [text, String(UnicodeScalar(byte)), " \(text)\t"] {
        #expect(
          CardFilter.normalize(value) == CardFilter.foundationNormalize(value),
          "\(value.debugDescription)")
      }
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      let value = String(
        decoding: (0..<Int.random(in: 0...12, using: &generator)).map { _ in
          UInt8.random(in: 0..<0x80, using: &generator)
        }, as: UTF8.self)
      #expect(
        CardFilter.normalize(value) == CardFilter.foundationNormalize(value),
        "\(value.debugDescription)")
    }
    #expect(CardFilter.normalize(" Café ") == "cafe")
  }

  @Test("a card's fields match a filter by company, ignoring case, accents and space")
  func matches() {
    var fields = CardFields(firstName: "Ana", company: "  Acme ")
    #expect(CardFilter(field: .company, value: "ACME").matches(fields))
    #expect(!CardFilter(field: .company, value: "Acm").matches(fields))
    fields.company = "Café"
    #expect(CardFilter(field: .company, value: "cafe").matches(fields))
    fields.address = CardAddress(city: "Lyon")
    #expect(CardFilter(field: .city, value: "lyon ").matches(fields))
  }
}
