import Foundation
import QRCodes
import RedisTestSupport

/// What a test expects of an image independently of the code under test: the layout worked
/// out from libqrencode's matrix, and the pixels read back by python3's zlib.
struct Expected {
  let matrix: QRMatrix
  let size: Int
  var modules: Int { matrix.width + 8 }
  var scale: Int { size / modules }
  var origin: Int { (size - scale * modules) / 2 + 4 * scale }

  /// Whether the pixel at (x, y) is dark: inside the symbol and on a dark module.
  func isDark(_ x: Int, _ y: Int) -> Bool {
    let (column, row) = ((x - origin), (y - origin))
    guard column >= 0, row >= 0, column < matrix.width * scale, row < matrix.width * scale
    else { return false }
    return matrix[row / scale, column / scale]
  }
}

enum PNGPixels {
  /// Decodes an 8-bit gray or gray+alpha, non-interlaced PNG with zlib and the PNG filters,
  /// printing the colour type, width, height and the samples as hex.
  static let script = #"""
    import sys, struct, zlib
    data = open(sys.argv[1], 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, ihdr = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert zlib.crc32(kind + body) == struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0]
        if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
        if kind == b'IDAT': idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = ihdr
    assert depth == 8 and colour in (0, 4) and interlace == 0
    bpp = 1 if colour == 0 else 2
    raw, stride, out, prev = zlib.decompress(idat), width * bpp, bytearray(), bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    print(colour, width, height, out.hex())
    """#

  /// (colour type, width, height, samples).
  static func decode(_ bytes: [UInt8]) throws -> (Int, Int, Int, [UInt8]) {
    let (output, status) = try ImageTools.python(script, bytes, ext: "png")
    let parts = output.split(separator: " ")
    guard status == 0, parts.count == 4, let colour = Int(parts[0]), let width = Int(parts[1]),
      let height = Int(parts[2])
    else { throw ImageTools.Failed(description: "not decoded: \(output.prefix(500))") }
    let hex = Array(parts[3].trimmingCharacters(in: .whitespacesAndNewlines).utf8)
    var samples: [UInt8] = []
    samples.reserveCapacity(hex.count / 2)
    func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
    for i in stride(from: 0, to: hex.count, by: 2) {
      samples.append(nibble(hex[i]) << 4 | nibble(hex[i + 1]))
    }
    return (colour, width, height, samples)
  }
}
