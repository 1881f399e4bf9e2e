import Foundation

/// An sRGB colour.
public struct RGB: Sendable, Hashable {
  public var r, g, b: UInt8

  public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
    self.r = r
    self.g = g
    self.b = b
  }

  /// `#rrggbb` (either case); nil for anything else.
  public init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 7, digits[0] == UInt8(ascii: "#") else { return nil }
    var value: UInt32 = 0
    for digit in digits.dropFirst() {
      guard let nibble = Self.nibble(digit) else { return nil }
      value = value << 4 | UInt32(nibble)
    }
    self.init(UInt8(value >> 16), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
  }

  private static func nibble(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// White or near-black, whichever contrasts more with this colour (WCAG's ratio).
  public var readableText: RGB {
    let white = RGB(0xFF, 0xFF, 0xFF)
    let dark = RGB(0x11, 0x13, 0x16)
    let l = luminance + 0.05
    return 1.05 / l >= l / (dark.luminance + 0.05) ? white : dark
  }

  /// WCAG's relative luminance: 0 black, 1 white.
  var luminance: Double {
    func linear(_ c: UInt8) -> Double {
      let v = Double(c) / 255
      return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
  }

  public var hex: String {
    let digits = Array("0123456789abcdef")
    return "#" + String([r, g, b].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
  }
}

/// RGB pixels to draw on: filled shapes with anti-aliased edges, and the pixel font's text.
struct Canvas {
  let width: Int
  let height: Int
  private(set) var pixels: [UInt8]

  init(width: Int, height: Int, background: RGB) {
    self.width = width
    self.height = height
    pixels = Array(
      repeatElement([background.r, background.g, background.b], count: width * height).joined())
  }

  /// A rectangle from (`x0`, `y0`) to (`x1`, `y1`) with corners of `radius`, each pixel covered
  /// by its share of the shape (a circle is a square whose radius is half its side).
  mutating func fill(
    _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, radius: Double = 0, _ color: RGB
  ) {
    let cx = (x0 + x1) / 2
    let cy = (y0 + y1) / 2
    let halfWidth = (x1 - x0) / 2 - radius
    let halfHeight = (y1 - y0) / 2 - radius
    for y in max(0, Int(y0))..<min(height, Int((y1).rounded(.up))) {
      for x in max(0, Int(x0))..<min(width, Int((x1).rounded(.up))) {
        // The pixel's centre's distance outside the shape's edge (negative inside).
        let dx = abs(Double(x) + 0.5 - cx) - halfWidth
        let dy = abs(Double(y) + 0.5 - cy) - halfHeight
        let (ox, oy) = (max(dx, 0), max(dy, 0))
        let outside = (ox * ox + oy * oy).squareRoot() + min(max(dx, dy), 0) - radius
        let cover = min(max(0.5 - outside, 0), 1)
        if cover > 0 { blend(x, y, color, cover) }
      }
    }
  }

  /// `text`'s glyphs from (`x`, `y`), their top-left, each font pixel a `scale`-pixel square.
  mutating func text(_ glyphs: [UInt64], x: Int, y: Int, scale: Int, _ color: RGB) {
    for (index, glyph) in glyphs.enumerated() {
      let left = x + index * PixelFont.advance * scale
      for row in 0..<PixelFont.height {
        let bits = UInt8(truncatingIfNeeded: glyph >> (8 * (PixelFont.height - 1 - row)))
        for column in 0..<PixelFont.width where bits & (0x10 >> column) != 0 {
          let px = left + column * scale
          let py = y + row * scale
          fill(Double(px), Double(py), Double(px + scale), Double(py + scale), color)
        }
      }
    }
  }

  private mutating func blend(_ x: Int, _ y: Int, _ color: RGB, _ cover: Double) {
    let i = (y * width + x) * 3
    func mixed(_ old: UInt8, _ new: UInt8) -> UInt8 {
      cover >= 1 ? new : UInt8((Double(old) + (Double(new) - Double(old)) * cover).rounded())
    }
    pixels[i] = mixed(pixels[i], color.r)
    pixels[i + 1] = mixed(pixels[i + 1], color.g)
    pixels[i + 2] = mixed(pixels[i + 2], color.b)
  }
}
