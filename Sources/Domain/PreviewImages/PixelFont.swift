import Foundation

/// A 5×8 bitmap font drawn for CardAtlas's images: the printable ASCII characters, `·`, and a
/// box for any other character. Letters with accents are drawn without them (`é` as `e`), a
/// few others as their usual ASCII spelling (`ß` as `ss`, `Ł` as `L`, `—` as `-`); invisible
/// and direction-changing characters are dropped. Rows 0 to 6 hold capitals, row 7 descenders.
enum PixelFont {
  static let width = 5
  static let height = 8
  /// A glyph's width and the gap after it, in font pixels.
  static let advance = 6

  /// `" "` to `"~"`: each glyph's 8 rows, the top one in the highest byte, a row's columns in
  /// its low 5 bits (the leftmost 0x10). The space is the only empty glyph.
  static let ascii: [UInt64] = [
    0x0000_0000_0000_0000, 0x0404_0404_0400_0400, 0x0A0A_0A00_0000_0000, 0x0A0A_1F0A_1F0A_0A00,
    0x040F_140E_051E_0400, 0x1819_0204_0813_0300, 0x0C12_1408_1512_0D00, 0x0404_0800_0000_0000,
    0x0204_0808_0804_0200, 0x0804_0202_0204_0800, 0x0004_150E_1504_0000, 0x0004_041F_0404_0000,
    0x0000_0000_000C_0408, 0x0000_001F_0000_0000, 0x0000_0000_000C_0C00, 0x0001_0204_0810_0000,
    0x0E11_1315_1911_0E00, 0x040C_0404_0404_0E00, 0x0E11_0102_0408_1F00, 0x1F02_0402_0111_0E00,
    0x0206_0A12_1F02_0200, 0x1F10_1E01_0111_0E00, 0x0608_101E_1111_0E00, 0x1F01_0204_0808_0800,
    0x0E11_110E_1111_0E00, 0x0E11_110F_0102_0C00, 0x000C_0C00_0C0C_0000, 0x000C_0C00_0C04_0800,
    0x0204_0810_0804_0200, 0x0000_1F00_1F00_0000, 0x0804_0201_0204_0800, 0x0E11_0102_0400_0400,
    0x0E11_010D_1515_0E00, 0x0E11_111F_1111_1100, 0x1E11_111E_1111_1E00, 0x0E11_1010_1011_0E00,
    0x1C12_1111_1112_1C00, 0x1F10_101E_1010_1F00, 0x1F10_101E_1010_1000, 0x0E11_1017_1111_0F00,
    0x1111_111F_1111_1100, 0x0E04_0404_0404_0E00, 0x0702_0202_0212_0C00, 0x1112_1418_1412_1100,
    0x1010_1010_1010_1F00, 0x111B_1515_1111_1100, 0x1111_1915_1311_1100, 0x0E11_1111_1111_0E00,
    0x1E11_111E_1010_1000, 0x0E11_1111_1512_0D00, 0x1E11_111E_1412_1100, 0x0F10_100E_0101_1E00,
    0x1F04_0404_0404_0400, 0x1111_1111_1111_0E00, 0x1111_1111_110A_0400, 0x1111_1115_1515_0A00,
    0x1111_0A04_0A11_1100, 0x1111_0A04_0404_0400, 0x1F01_0204_0810_1F00, 0x0E08_0808_0808_0E00,
    0x0010_0804_0201_0000, 0x0E02_0202_0202_0E00, 0x040A_1100_0000_0000, 0x0000_0000_0000_1F00,
    0x0804_0200_0000_0000, 0x0000_0E01_0F11_0F00, 0x1010_1619_1111_1E00, 0x0000_0E10_1011_0E00,
    0x0101_0D13_1111_0F00, 0x0000_0E11_1F10_0E00, 0x0609_081C_0808_0800, 0x0000_0F11_110F_010E,
    0x1010_1619_1111_1100, 0x0400_0C04_0404_0E00, 0x0200_0602_0202_120C, 0x1010_1214_1814_1200,
    0x0C04_0404_0404_0E00, 0x0000_1A15_1515_1500, 0x0000_1619_1111_1100, 0x0000_0E11_1111_0E00,
    0x0000_1E11_111E_1010, 0x0000_0F11_110F_0101, 0x0000_1619_1010_1000, 0x0000_0F10_0E01_1E00,
    0x0808_1C08_0809_0600, 0x0000_1111_1113_0D00, 0x0000_1111_110A_0400, 0x0000_1111_1515_0A00,
    0x0000_110A_040A_1100, 0x0000_1111_110F_010E, 0x0000_1F02_0408_1F00, 0x0204_0408_0404_0200,
    0x0404_0404_0404_0400, 0x0804_0402_0404_0800, 0x0000_0815_0200_0000,
  ]
  static let middleDot: UInt64 = 0x0000_0004_0000_0000
  static let box: UInt64 = 0x1F11_1111_1111_1F00
  static let space: UInt64 = 0

  /// Characters spelt otherwise in ASCII (those that do not decompose into a letter and marks).
  static let spelt: [Character: String] = [
    "ß": "ss", "Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE",
    "œ": "oe", "Đ": "D", "đ": "d", "Þ": "Th", "þ": "th", "ı": "i", "–": "-", "—": "-",
    "‐": "-", "−": "-", "‘": "'", "’": "'", "“": "\"", "”": "\"", "„": "\"", "…": "...",
  ]

  /// `text` as glyphs: at most `limit` characters of it are read, white space of any kind is a
  /// space and runs of spaces are one.
  static func glyphs(_ text: String, limit: Int = 200) -> [UInt64] {
    var out: [UInt64] = []
    for character in text.prefix(limit) {
      for glyph in glyphs(of: character) {
        if glyph == space && (out.last ?? space) == space { continue }
        out.append(glyph)
      }
    }
    while out.last == space { out.removeLast() }
    return out
  }

  static func glyphs(of character: Character) -> [UInt64] {
    if character.isWhitespace { return [space] }
    if let ascii = character.asciiValue {
      return (32...126).contains(ascii) ? [Self.ascii[Int(ascii) - 32]] : []
    }
    if character == "·" { return [middleDot] }
    if let spelling = spelt[character] { return spelling.flatMap { glyphs(of: $0) } }
    let scalars = String(character).decomposedStringWithCanonicalMapping.unicodeScalars
    let isMark = { (s: Unicode.Scalar) in
      [.nonspacingMark, .enclosingMark, .spacingMark].contains(s.properties.generalCategory)
    }
    if let first = scalars.first, first.isASCII, first.properties.isAlphabetic,
      scalars.dropFirst().allSatisfy(isMark)
    {
      return glyphs(of: Character(first))
    }
    let unseen: Set<Unicode.GeneralCategory> = [.format, .control, .nonspacingMark, .enclosingMark]
    if scalars.allSatisfy({ unseen.contains($0.properties.generalCategory) }) { return [] }
    return [box]
  }
}
