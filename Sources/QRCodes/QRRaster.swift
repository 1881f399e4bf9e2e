import CJPEG
import CPNG
import Foundation

/// The code as pixels, and those pixels as PNG (libpng) or JPEG (libjpeg-turbo).
enum QRRaster {
  /// 8-bit gray, 0 dark and 255 light; with `alpha`, gray and alpha pairs where light is
  /// transparent.
  static func pixels(_ layout: QRLayout, alpha: Bool) -> [UInt8] {
    let channels = alpha ? 2 : 1
    let rowBytes = layout.size * channels
    var pixels = [UInt8](repeating: 255, count: rowBytes * layout.size)
    if alpha {
      for i in stride(from: 1, to: pixels.count, by: 2) { pixels[i] = 0 }
    }
    let dark: [UInt8] = alpha ? [0, 255] : [0]
    pixels.withUnsafeMutableBufferPointer { p in
      for run in layout.darkRuns {
        let x = (layout.origin + run.column * layout.scale) * channels
        let width = run.count * layout.scale
        for y in 0..<layout.scale {
          var i = (layout.origin + run.row * layout.scale + y) * rowBytes + x
          for _ in 0..<width {
            for c in 0..<channels { p[i + c] = dark[c] }
            i += channels
          }
        }
      }
    }
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
