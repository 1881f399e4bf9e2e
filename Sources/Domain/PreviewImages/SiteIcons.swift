/// The site's icon: a white card with a round picture and two lines of text, on the accent.
/// Drawn in 32ths of its side, so that each size is drawn sharp rather than scaled.
extension PreviewImages {
  /// The icon, `size` pixels square, as PNG bytes.
  public static func icon(size: Int) throws(PreviewImageError) -> [UInt8] {
    let u = Double(size) / 32
    var canvas = Canvas(width: size, height: size, background: accent)
    canvas.fill(4 * u, 8 * u, 28 * u, 24 * u, radius: 2.5 * u, white)
    canvas.fill(6.5 * u, 12.5 * u, 13.5 * u, 19.5 * u, radius: 3.5 * u, accent)
    canvas.fill(16 * u, 12.5 * u, 25 * u, 14.5 * u, radius: u, accent)
    canvas.fill(16 * u, 17.5 * u, 22.5 * u, 19.5 * u, radius: u, accent)
    return try PNGWriter.png(canvas)
  }

  /// `/favicon.ico`: the icon at 16, 32 and 48 pixels, each a PNG in an ICO directory (which
  /// every browser since Internet Explorer 9 reads).
  public static func favicon() throws(PreviewImageError) -> [UInt8] {
    let sizes = [16, 32, 48]
    let images = try sizes.map { size throws(PreviewImageError) in try icon(size: size) }
    var out: [UInt8] = []
    func little(_ value: Int, _ bytes: Int) {
      for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }
    little(0, 2)
    little(1, 2)  // an icon, not a cursor
    little(images.count, 2)
    var offset = 6 + 16 * images.count
    for (size, image) in zip(sizes, images) {
      out += [UInt8(size), UInt8(size), 0, 0]  // width, height, no palette, reserved
      little(1, 2)  // colour planes
      little(32, 2)  // bits per pixel
      little(image.count, 4)
      little(offset, 4)
      offset += image.count
    }
    for image in images { out += image }
    return out
  }
}
