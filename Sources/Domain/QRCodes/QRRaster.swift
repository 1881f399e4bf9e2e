import CJPEG
import CPNG
import Foundation

/// The code as pixels, and those pixels as PNG (libpng) or JPEG (libjpeg-turbo).
enum QRRaster {
  /// 8-bit gray, 0 dark and 255 light; with `alpha`, gray and alpha pairs where light is
  /// transparent.
  static func pixels(_ layout: QRLayout, alpha: Bool) -> [UInt8] {
    let light: [UInt8] = alpha ? [255, 0] : [255]
    let dark: [UInt8] = alpha ? [0, 255] : [0]
    let lightRow = Array(repeatElement(light, count: layout.size).joined())
    let rowBytes = lightRow.count
    var pixels = [UInt8]()
    pixels.reserveCapacity(rowBytes * layout.size)
    // Above the symbol; then each row of modules drawn once and repeated `scale` times.
    for _ in 0..<layout.origin { pixels += lightRow }
    let runs = layout.darkRuns
    var next = 0
    for row in 0..<layout.matrix.width {
      var line = lightRow
      while next < runs.count && runs[next].row == row {
        let run = runs[next]
        let x = layout.origin + run.column * layout.scale
        for i in x..<(x + run.count * layout.scale) {
          line.replaceSubrange(i * dark.count..<(i + 1) * dark.count, with: dark)
        }
        next += 1
      }
      for _ in 0..<layout.scale { pixels += line }
    }
    while pixels.count < rowBytes * layout.size { pixels += lightRow }
    return pixels
  }

  static func png(_ layout: QRLayout, transparent: Bool) throws(QRCodeError) -> [UInt8] {
    let pixels = Self.pixels(layout, alpha: transparent)
    // A first guess well above what a QR code compresses to; libpng says if it needs more.
    var capacity = pixels.count / 16 + 4096
    for _ in 0..<2 {
      var image = png_image()
      image.version = png_uint_32(PNG_IMAGE_VERSION)
      image.width = png_uint_32(layout.size)
      image.height = png_uint_32(layout.size)
      image.format = transparent ? png_uint_32(PNG_FORMAT_GA) : png_uint_32(PNG_FORMAT_GRAY)
      // zlib's fast setting: a QR code's long runs compress about as well, in far less time.
      image.flags = png_uint_32(PNG_IMAGE_FLAG_FAST)
      var out = [UInt8](repeating: 0, count: capacity)
      var written = png_alloc_size_t(capacity)
      let ok = out.withUnsafeMutableBytes { o in
        pixels.withUnsafeBytes { p in
          png_image_write_to_memory(&image, o.baseAddress, &written, 0, p.baseAddress, 0, nil)
        }
      }
      if ok != 0 {
        out.removeSubrange(Int(written)...)
        return out
      }
      guard Int(written) > capacity else {
        throw .failed("libpng: \(Self.message(&image))")
      }
      capacity = Int(written)
    }
    throw .failed("libpng: the image outgrew its buffer")
  }

  /// Gray JPEG on white: JPEG has no transparency.
  static func jpeg(_ layout: QRLayout, quality: Int32 = 90) throws(QRCodeError) -> [UInt8] {
    let pixels = Self.pixels(layout, alpha: false)
    var out: UnsafeMutablePointer<UInt8>?
    var count: UInt = 0
    let side = UInt32(layout.size)
    let ok = pixels.withUnsafeBufferPointer { p in
      cardatlas_jpeg_gray(p.baseAddress, side, side, quality, &out, &count)
    }
    guard ok != 0, let out else { throw .failed("libjpeg could not compress the image") }
    defer { free(out) }
    return Array(UnsafeBufferPointer(start: out, count: Int(count)))
  }

  private static func message(_ image: inout png_image) -> String {
    withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }
}
