import Dispatch

/// What a card's link preview shows (`og:image`): its name, role, tagline and address, by a
/// circle of its initials, in its theme colour. The page's door fills it from the card.
public struct CardPreview: Sendable, Hashable {
  public var name: String
  public var initials: String
  /// The job title and company.
  public var role: String?
  public var tagline: String?
  /// The page's URL as it is shown: without its scheme.
  public var address: String
  public var theme: RGB?

  public init(
    name: String, initials: String, role: String?, tagline: String?, address: String,
    theme: RGB?
  ) {
    self.name = name
    self.initials = initials
    self.role = role
    self.tagline = tagline
    self.address = address
    self.theme = theme
  }
}

/// Images drawn on the server for sharing: a card's 1200×630 link preview and the site's icon,
/// as PNG (libpng); text in `PixelFont`. No RESP, no HTTP.
public enum PreviewImages {
  public static let width = 1200
  public static let height = 630
  /// The pages' accent, for a card without a theme colour.
  public static let accent = RGB(0x24, 0x57, 0xD6)
  static let white = RGB(0xFF, 0xFF, 0xFF)
  static let ink = RGB(0x1B, 0x1D, 0x21)
  static let muted = RGB(0x5B, 0x62, 0x70)

  /// The preview as PNG bytes. Its cost is fixed: the size is, and so is how much text is read.
  public static func png(_ preview: CardPreview) throws(PreviewImageError) -> [UInt8] {
    let theme = preview.theme ?? accent
    var canvas = Canvas(width: width, height: height, background: theme)
    canvas.fill(48, 48, 1152, 582, radius: 36, white)
    canvas.fill(108, 191, 356, 439, radius: 124, theme)
    // Two initials; three glyphs at most (`ß` is spelt `ss`) still fit the circle.
    let initials = Array(PixelFont.glyphs(preview.initials, limit: 2).prefix(3))
    let side = TextLayout.width(initials.count, scale: 12)
    canvas.text(initials, x: 232 - side / 2, y: 315 - 42, scale: 12, theme.readableText)

    // The name, then the role and tagline, as one block centred beside the circle.
    let column = 680
    func block(_ text: String, _ scales: [Int], _ color: RGB) -> (TextLayout, RGB) {
      (TextLayout.fit(PixelFont.glyphs(text), width: column, scales: scales, maxLines: 2), color)
    }
    var blocks = [block(preview.name, [8, 7, 6, 5], ink)]
    if let role = preview.role { blocks.append(block(role, [4], muted)) }
    if let tagline = preview.tagline { blocks.append(block(tagline, [3], muted)) }
    let lineHeight = { (layout: TextLayout) in 11 * layout.scale }
    let total = blocks.reduce(0) { $0 + $1.0.lines.count * lineHeight($1.0) + 16 } - 16
    var y = max(80, 300 - total / 2)
    for (layout, color) in blocks {
      for line in layout.lines {
        canvas.text(line, x: 420, y: y, scale: layout.scale, color)
        y += lineHeight(layout)
      }
      y += 16
    }
    // The address at the foot, in the theme colour where that reads on white.
    let address = TextLayout.fit(
      PixelFont.glyphs(preview.address), width: column, scales: [3], maxLines: 1)
    let addressColor = theme.readableText == white ? theme : muted
    canvas.text(address.lines.first ?? [], x: 420, y: 510, scale: 3, addressColor)
    return try PNGWriter.png(canvas)
  }

  /// `png(_:)` on `queue`, never the caller's thread: a preview takes milliseconds, which
  /// neither an event loop nor Swift's cooperative pool should spend. A serial queue draws one
  /// image at a time, however many are asked for.
  public static func draw(_ preview: CardPreview, on queue: DispatchQueue) async -> Result<
    [UInt8], PreviewImageError
  > {
    await withCheckedContinuation { continuation in
      queue.async {
        do throws(PreviewImageError) {
          continuation.resume(returning: .success(try png(preview)))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
  }
}
