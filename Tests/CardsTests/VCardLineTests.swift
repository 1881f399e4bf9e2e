import Cards
import Testing

/// The vCard line rules on random text: folding (RFC 6350 3.2) and text escaping (3.4).
@Suite struct VCardLineTests {
  /// Characters of 1, 2, 3 and 4 UTF-8 bytes, and those vCard text gives a meaning to.
  static let alphabet: [Character] = [
    "a", "Z", " ", "é", "ß", "日", "€", "🙂", "👩🏽‍💻", "\\", ",", ";", "\n", "\r", "\r\n", ":",
  ]

  static func random(_ rng: inout some RandomNumberGenerator) -> String {
    String(
      (0..<Int.random(in: 0...400, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
  }

  @Test("a folded line: CRLF ends only, at most 75 octets a line, no character split, unfolds back")
  func folding() {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let value = Self.random(&rng).filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" }
      let line = "NOTE:" + value
      let folded = Array(VCard.fold(line).utf8)
      #expect(folded.suffix(2) == [13, 10])
      var physical: [[UInt8]] = []
      var current: [UInt8] = []
      var i = 0
      while i < folded.count {
        if folded[i] == 13 {
          #expect(folded[i + 1] == 10)
          physical.append(current)
          current = []
          i += 2
        } else {
          #expect(folded[i] != 10)
          current.append(folded[i])
          i += 1
        }
      }
      for (n, bytes) in physical.enumerated() {
        #expect(bytes.count <= 75)
        #expect(String(validating: bytes, as: UTF8.self) != nil, "split inside a character")
        if n > 0 { #expect(bytes.first == 32 && bytes.count > 1) }
      }
      let unfolded = physical.enumerated().flatMap { n, bytes in
        n == 0 ? bytes : Array(bytes.dropFirst())
      }
      #expect(unfolded == Array(line.utf8))
    }
  }

  @Test("escaped text has no line break, ; or unescaped , and reads back with line breaks as LF")
  func escaping() {
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let value = Self.random(&rng)
      let escaped = VCard.escape(value)
      #expect(!escaped.unicodeScalars.contains { $0 == "\n" || $0 == "\r" })
      // Read back as a vCard parser does.
      var read = String.UnicodeScalarView()
      var scalars = escaped.unicodeScalars.makeIterator()
      while let c = scalars.next() {
        guard c == "\\" else {
          #expect(c != "," && c != ";", "unescaped separator in \(escaped)")
          read.append(c)
          continue
        }
        switch scalars.next() {
        case "n": read.append("\n")
        case let next?: read.append(next)
        case nil: Issue.record("a dangling backslash in \(escaped)")
        }
      }
      let expected = value.replacingLineBreaks()
      #expect(String(read) == expected)
    }
  }
}

extension String {
  /// CRLF and CR as LF.
  fileprivate func replacingLineBreaks() -> String {
    var out = String.UnicodeScalarView()
    var afterCR = false
    for scalar in unicodeScalars {
      defer { afterCR = scalar == "\r" }
      if scalar == "\r" {
        out.append("\n")
      } else if scalar != "\n" || !afterCR {
        out.append(scalar)
      }
    }
    return String(out)
  }
}
