import ErrorLines
import Foundation
import QRCodes
import RedisTestSupport
import Testing

/// QR codes drawn by libqrencode, libpng and libjpeg-turbo, read back by real decoders:
/// zbarimg for the code, pngcheck, python3's zlib, djpeg and rsvg-convert for the images.
@Suite("QR codes")
struct QRCodesTests {
  static let url = "https://cards.test/c/ana-lima/x7k"
  static let sizes = [120, 333, 1024]
  static let levels = QRErrorCorrection.allCases

  @Test("PNG decodes to the text at every level and size, opaque or transparent", arguments: levels)
  func png(level: QRErrorCorrection) throws {
    for size in Self.sizes {
      for transparent in [false, true] {
        let options = QROptions(
          format: .png, size: size, transparent: transparent, errorCorrection: level)
        let image = try QRCodes.image(Self.url, options)
        #expect(image.contentType == "image/png")
        let check = try ImageTools.pngcheck(image.bytes)
        #expect(check.ok, "\(check.output)")
        #expect(check.output.contains("\(size) x \(size) image"), "\(check.output)")
        #expect(
          // pngcheck counts bits per pixel: 8-bit gray and alpha samples are 16 bits.
          check.output.contains(transparent ? "16-bit grayscale+alpha" : "8-bit grayscale,"),
          "\(check.output)")
        #expect(try ImageTools.qrTexts(image.bytes, ext: "png") == [Self.url], "\(options)")
      }
    }
  }

  @Test(
    "PNG pixels are the matrix: integer modules, a 4-module quiet zone, centred; transparent light pixels",
    arguments: [false, true])
  func pngPixels(transparent: Bool) throws {
    for size in [120, 333] {
      let expected = Expected(
        matrix: try QRMatrix(Self.url, errorCorrection: .medium), size: size)
      let image = try QRCodes.image(
        Self.url, QROptions(format: .png, size: size, transparent: transparent))
      let (colour, width, height, samples) = try PNGPixels.decode(image.bytes)
      #expect(colour == (transparent ? 4 : 0) && width == size && height == size)
      let channels = transparent ? 2 : 1
      var wrong = 0
      for y in 0..<size {
        for x in 0..<size {
          let i = (y * size + x) * channels
          let dark = expected.isDark(x, y)
          if transparent {
            // Dark: opaque black; light: fully transparent.
            if dark ? (samples[i] != 0 || samples[i + 1] != 255) : samples[i + 1] != 0 {
              wrong += 1
            }
          } else if samples[i] != (dark ? 0 : 255) {
            wrong += 1
          }
        }
      }
      #expect(wrong == 0, "size \(size): \(wrong) pixels differ")
      #expect(expected.scale >= 1 && expected.origin >= 4 * expected.scale)
    }
  }

  @Test(
    "JPEG decodes to the text at every level and size, on white even when transparent is asked",
    arguments: levels)
  func jpeg(level: QRErrorCorrection) throws {
    for size in Self.sizes {
      for transparent in [false, true] {
        let options = QROptions(
          format: .jpeg, size: size, transparent: transparent, errorCorrection: level)
        let image = try QRCodes.image(Self.url, options)
        #expect(image.contentType == "image/jpeg")
        let decoded = try #require(try ImageTools.decodeJPEG(image.bytes))
        #expect(decoded.width == size && decoded.height == size)
        let expected = Expected(matrix: try QRMatrix(Self.url, errorCorrection: level), size: size)
        // Module centres, away from JPEG's ringing at the edges.
        var wrong = 0
        for row in -4..<(expected.matrix.width + 4) {
          for column in -4..<(expected.matrix.width + 4) {
            let x = expected.origin + column * expected.scale + expected.scale / 2
            let y = expected.origin + row * expected.scale + expected.scale / 2
            guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
            let value = decoded.pixels[y * size + x]
            if expected.isDark(x, y) ? value > 64 : value < 192 { wrong += 1 }
          }
        }
        #expect(wrong == 0, "\(options): \(wrong) modules misread")
        #expect(decoded.pixels[0] > 240, "the background is white")
        #expect(try ImageTools.qrTexts(image.bytes, ext: "jpg") == [Self.url], "\(options)")
      }
    }
  }

  @Test(
    "SVG is well-formed XML, its path is the matrix, and rendered it decodes to the text",
    arguments: levels)
  func svg(level: QRErrorCorrection) throws {
    for size in Self.sizes {
      for transparent in [false, true] {
        let options = QROptions(
          format: .svg, size: size, transparent: transparent, errorCorrection: level)
        let image = try QRCodes.image(Self.url, options)
        #expect(image.contentType == "image/svg+xml")
        let (parsed, status) = try ImageTools.python(
          """
          import sys, xml.etree.ElementTree as ET
          root = ET.parse(sys.argv[1]).getroot()
          ns = '{http://www.w3.org/2000/svg}'
          assert root.tag == ns + 'svg', root.tag
          print(root.get('width'), root.get('height'), root.get('shape-rendering'),
                len(root.findall(ns + 'rect')), len(root.findall(ns + 'path')))
          print(root.find(ns + 'path').get('d'))
          """, image.bytes, ext: "svg")
        #expect(status == 0, "\(parsed)")
        let lines = parsed.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(size) \(size) crispEdges \(transparent ? 0 : 1) 1")
        let expected = Expected(matrix: try QRMatrix(Self.url, errorCorrection: level), size: size)
        #expect(try Self.modules(path: lines.last ?? "", expected) == expected.matrix.modules)
        let rendered = try ImageTools.svgToPNG(image.bytes)
        #expect(try ImageTools.qrTexts(rendered, ext: "png") == [Self.url], "\(options)")
      }
    }
  }

  @Test("a short text fits the smallest size, 64 pixels, and decodes")
  func smallest() throws {
    for format in QRFormat.allCases {
      let image = try QRCodes.image("hi", QROptions(format: format, size: 64)).bytes
      let readable = format == .svg ? try ImageTools.svgToPNG(image) : image
      #expect(try ImageTools.qrTexts(readable, ext: format == .jpeg ? "jpg" : "png") == ["hi"])
    }
  }

  @Test(
    "sizes outside 64...2048, a size too small for the code, and empty or too long texts are refused"
  )
  func refusals() throws {
    for size in [0, -1, 63, 2049, 100_000, Int.max] {
      #expect(throws: QRCodeError.sizeOutOfRange(size)) {
        try QRCodes.image(Self.url, QROptions(format: .png, size: size))
      }
    }
    let long = String(repeating: "https://cards.test/", count: 20)
    let needed = try QRMatrix(long, errorCorrection: .high).width + 8
    #expect(needed > 64)
    #expect(throws: QRCodeError.sizeTooSmall(needed: needed)) {
      try QRCodes.image(long, QROptions(format: .png, size: 64, errorCorrection: .high))
    }
    #expect(
      QRCodeError.sizeTooSmall(needed: needed).message
        == "ERR SIZE is too small for this code: it needs at least \(needed) pixels")
    #expect(throws: QRCodeError.textNotEncodable) {
      try QRCodes.image("", QROptions(format: .svg))
    }
    #expect(throws: QRCodeError.textNotEncodable) {
      try QRCodes.image(String(repeating: "x", count: 3000), QROptions(format: .svg))
    }
    #expect(
      QRCodeError.sizeOutOfRange(4096).message
        == "ERR SIZE 4096 is out of range (64 to 2048 pixels)")
  }

  @Test("the error correction level changes the symbol: H needs more modules than L")
  func levelsDiffer() throws {
    let low = try QRMatrix(Self.url, errorCorrection: .low)
    let high = try QRMatrix(Self.url, errorCorrection: .high)
    #expect(high.width > low.width)
    #expect(QROptions(format: .png).errorCorrection == .medium)
  }

  /// The module grid an SVG path of `M x y h w v s h -w z` runs draws, checked to lie on the
  /// expected pixel grid.
  static func modules(path: String, _ expected: Expected) throws -> [Bool] {
    var grid = [Bool](repeating: false, count: expected.matrix.width * expected.matrix.width)
    let runs = path.split(separator: "z")
    for run in runs {
      let numbers = run.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
      guard numbers.count == 5 else { throw ImageTools.Failed(description: "run \(run)") }
      let (x, y, width, height) = (numbers[0], numbers[1], numbers[2], numbers[3])
      let s = expected.scale
      guard (x - expected.origin) % s == 0, (y - expected.origin) % s == 0, width % s == 0,
        height == s, numbers[4] == -width
      else { throw ImageTools.Failed(description: "off the grid: \(run)") }
      let (row, column) = ((y - expected.origin) / s, (x - expected.origin) / s)
      for c in column..<(column + width / s) { grid[row * expected.matrix.width + c] = true }
    }
    return grid
  }
}
