import CPNG

/// 8-bit RGB pixels as PNG, through libpng's simplified write API (which reports errors as a
/// return value rather than by `longjmp`).
enum PNGWriter {
  static func png(_ canvas: Canvas) throws(PreviewImageError) -> [UInt8] {
    // Flat colours and text compress far below this; libpng says if it needs more.
    var capacity = canvas.pixels.count / 8 + 4096
    for _ in 0..<2 {
      var image = png_image()
      image.version = png_uint_32(PNG_IMAGE_VERSION)
      image.width = png_uint_32(canvas.width)
      image.height = png_uint_32(canvas.height)
      image.format = png_uint_32(PNG_FORMAT_RGB)
      image.flags = png_uint_32(PNG_IMAGE_FLAG_FAST)
      var out = [UInt8](repeating: 0, count: capacity)
      var written = png_alloc_size_t(capacity)
      let ok = out.withUnsafeMutableBytes { o in
        canvas.pixels.withUnsafeBytes { p in
          png_image_write_to_memory(&image, o.baseAddress, &written, 0, p.baseAddress, 0, nil)
        }
      }
      if ok != 0 {
        out.removeSubrange(Int(written)...)
        return out
      }
      guard Int(written) > capacity else {
        let message = withUnsafeBytes(of: &image.message) {
          String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
        }
        throw PreviewImageError(reason: "libpng: \(message)")
      }
      capacity = Int(written)
    }
    throw PreviewImageError(reason: "libpng: the image outgrew its buffer")
  }
}

/// Why an image was not drawn (only libpng failing: the inputs are always drawable).
public struct PreviewImageError: Error, Sendable {
  public let reason: String
}
