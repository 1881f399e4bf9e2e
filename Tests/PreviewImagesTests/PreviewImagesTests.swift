import Foundation
import Testing

@testable import PreviewImages

@Suite("Preview images: a card's link preview and the site's icon")
struct PreviewImagesTests {
  static let ana = CardPreview(
    name: "Ana Lima", initials: "AL", role: "Pilot · Acme", tagline: "Maps & more",
    address: "cards.test/c/ana", theme: RGB(hex: "#1a73e8"))

  @Test(
    "the preview is a 1200×630 PNG: the theme colour around a white card, the initials' circle in it"
  )
  func layout() throws {
    let image = try #require(DecodedPNG(try PreviewImages.png(Self.ana)))
    #expect(image.width == 1200 && image.height == 630)
    #expect(image[5, 5] == [0x1A, 0x73, 0xE8] && image[1195, 625] == [0x1A, 0x73, 0xE8])
    #expect(image[600, 70] == [255, 255, 255])
    // The circle's rim, and its initials' white (the theme is dark enough for white text).
    #expect(image[232, 200] == [0x1A, 0x73, 0xE8])
    let initials = (180..<285).flatMap { x in (270..<360).map { y in image[x, y] } }
    let white = initials.filter { $0 == [255, 255, 255] }.count
    #expect(white > 1_000 && white < initials.count / 2)
    // Text in the column beside it: the name in ink, the rest muted.
    let column = (420..<1100).flatMap { x in (80..<500).map { image[x, $0] } }
    #expect(column.filter { $0 == [0x1B, 0x1D, 0x21] }.count > 2_000)
    #expect(column.filter { $0 == [0x5B, 0x62, 0x70] }.count > 1_000)
  }

  @Test("without a theme the pages' accent; a light theme gets dark initials")
  func colours() throws {
    var plain = Self.ana
    plain.theme = nil
    let image = try #require(DecodedPNG(try PreviewImages.png(plain)))
    #expect(image[5, 5] == [0x24, 0x57, 0xD6])
    #expect(RGB(hex: "#ffeb3b")?.readableText == RGB(0x11, 0x13, 0x16))
    #expect(RGB(hex: "#1A73E8")?.readableText == RGB(255, 255, 255))
    #expect(RGB(hex: "#1A73E8")?.hex == "#1a73e8")
    for bad in ["1a73e8", "#1a73e", "#1a73e8f", "#1g73e8", "#１a73e8", "", "#"] {
      #expect(RGB(hex: bad) == nil, "\(bad)")
    }
  }

  @Test(
    "text is drawn as the font's glyphs: accents dropped, invisible and direction-changing characters dropped, others a box; markup is only characters"
  )
  func folding() {
    func same(_ a: String, _ b: String) -> Bool { PixelFont.glyphs(a) == PixelFont.glyphs(b) }
    #expect(same("Zoë Núñez-Łukasiewicz — Straße", "Zoe Nunez-Lukasiewicz - Strasse"))
    #expect(same("a\u{202E}b\u{200B}c\u{7}", "abc"))
    #expect(same("  one\n\ttwo  ", "one two"))
    #expect(PixelFont.glyphs("<script>alert(1)</script>").count == 25)
    #expect(PixelFont.glyphs("👩🏽‍💻") == [PixelFont.box])
    #expect(PixelFont.glyphs("مرحبا") == Array(repeating: PixelFont.box, count: 5))
    #expect(PixelFont.glyphs("a · b")[2] == PixelFont.middleDot)
    // Every printable ASCII character has its own glyph; only the space is empty.
    let ascii = (32...126).map { PixelFont.glyphs(of: Character(UnicodeScalar($0))) }
    #expect(Set(ascii).count == 95 && ascii.dropFirst().allSatisfy { $0 != [PixelFont.space] })
    // However long the text, at most 200 characters are read.
    #expect(PixelFont.glyphs(String(repeating: "x", count: 10_000)).count == 200)
  }

  @Test(
    "a long name wraps at words onto two lines at a smaller size; longer still, it is cut with ...")
  func fitting() {
    let glyphs = { (text: String) in PixelFont.glyphs(text) }
    let short = TextLayout.fit(glyphs("Ana Lima"), width: 680, scales: [8, 7, 6, 5], maxLines: 2)
    #expect(short.scale == 8 && short.lines == [glyphs("Ana Lima")])
    let long = TextLayout.fit(
      glyphs("Dr. Zoë Ana Łukasiewicz-Núñez, PhD"), width: 680, scales: [8, 7, 6, 5], maxLines: 2)
    #expect(long.scale == 5)
    #expect(long.lines == [glyphs("Dr. Zoe Ana"), glyphs("Lukasiewicz-Nunez, PhD")])
    for line in long.lines { #expect(TextLayout.width(line.count, scale: 5) <= 680) }
    let cut = TextLayout.fit(
      glyphs(String(repeating: "word ", count: 100)), width: 680, scales: [5], maxLines: 2)
    #expect(cut.lines.count == 2 && cut.lines[1].suffix(3) == ArraySlice(glyphs("...")))
    for line in cut.lines { #expect(TextLayout.width(line.count, scale: 5) <= 680) }
    // A word longer than a line is split where the line ends.
    let word = TextLayout.wrap(glyphs(String(repeating: "x", count: 25)), perLine: 10)
    #expect(word.map(\.count) == [10, 10, 5])
  }

  @Test("hostile and huge text costs the same fixed image: 2,000 emoji, right-to-left overrides")
  func boundedText() throws {
    var hostile = Self.ana
    hostile.name = String(repeating: "👩🏽‍💻", count: 2_000) + "\u{202E}"
    hostile.role = String(repeating: "<script>alert(1)</script>", count: 100)
    hostile.tagline = String(repeating: "مرحبا", count: 400)
    let image = try #require(DecodedPNG(try PreviewImages.png(hostile)))
    #expect(image.width == 1200 && image.height == 630)
  }

  @Test("the icon at each size, and /favicon.ico: an ICO directory of 16, 32 and 48-pixel PNGs")
  func icons() throws {
    for size in [16, 32, 192, 512] {
      let icon = try #require(DecodedPNG(try PreviewImages.icon(size: size)))
      #expect(icon.width == size && icon.height == size)
      #expect(icon[0, 0] == [0x24, 0x57, 0xD6])
      // The white card across the middle.
      #expect(icon[size * 20 / 32, size * 22 / 32] == [255, 255, 255], "\(size)")
    }
    let ico = try PreviewImages.favicon()
    func number(_ at: Int, _ bytes: Int) -> Int {
      (0..<bytes).reduce(0) { $0 | Int(ico[at + $1]) << (8 * $1) }
    }
    #expect(number(0, 2) == 0 && number(2, 2) == 1 && number(4, 2) == 3)
    for (index, size) in [16, 32, 48].enumerated() {
      let entry = 6 + 16 * index
      #expect(Int(ico[entry]) == size && Int(ico[entry + 1]) == size)
      let (length, offset) = (number(entry + 8, 4), number(entry + 12, 4))
      let png = try #require(DecodedPNG(Array(ico[offset..<offset + length])))
      #expect(png.width == size && png.height == size)
    }
  }
}
