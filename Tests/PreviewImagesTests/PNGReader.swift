import CPNG

/// A PNG read back as 8-bit RGB by libpng's simplified read API.
struct DecodedPNG {
  let width: Int
  let height: Int
  let pixels: [UInt8]

  init?(_ bytes: [UInt8]) {
    var image = png_image()
    image.version = png_uint_32(PNG_IMAGE_VERSION)
    let begun = bytes.withUnsafeBytes {
      png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count)
    }
    guard begun != 0 else { return nil }
    image.format = png_uint_32(PNG_FORMAT_RGB)
    var pixels = [UInt8](repeating: 0, count: Int(image.width * image.height) * 3)
    let read = bytes.withUnsafeBytes { _ in
      pixels.withUnsafeMutableBytes {
        png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
      }
    }
    guard read != 0 else { return nil }
    width = Int(image.width)
    height = Int(image.height)
    self.pixels = pixels
  }

  subscript(x: Int, y: Int) -> [UInt8] {
    let i = (y * width + x) * 3
    return Array(pixels[i..<i + 3])
  }
}
