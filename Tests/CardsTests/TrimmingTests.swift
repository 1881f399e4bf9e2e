import Foundation
import Testing

@testable import Cards

/// `trimmed` against Foundation's `trimmingCharacters(in:)`, which it stands in for.
@Suite("Trimming a field's value")
struct TrimmingTests {
  @Test(
    "every ASCII byte at either end, and Unicode's white space (NBSP, ideographic space, NEL, line separator) and other letters, trim as Foundation trims, for both sets used; a zero-width space, white space in Foundation's table on Linux but not in Unicode's, is kept as it always was"
  )
  func asFoundation() {
    let ends =
      (0..<128).map { String(UnicodeScalar(UInt8($0))) }
      + ["\u{A0}", "\u{3000}", "\u{85}", "\u{2028}", "é", "😀", ""]
    for set in [CharacterSet.whitespacesAndNewlines, .whitespaces] {
      for first in ends {
        for last in ends {
          let value = first + "a b" + last
          #expect(
            value.trimmed(set) == value.trimmingCharacters(in: set),
            "\(Array(value.unicodeScalars.map(\.value)))")
        }
      }
      #expect("\u{200B}a b\u{200B}".trimmed(set) == "\u{200B}a b\u{200B}")
    }
  }
}
