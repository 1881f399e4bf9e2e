import CZlib

/// Recognises an uploaded file by its magic bytes, then reads its header far enough to know it
/// is what it claims: a renamed text file, a truncated header or a zero-sized image is refused.
/// Nothing is decoded beyond the header, so a hostile file costs no more than its bytes.
public enum MediaInspector {
  public static func inspect(_ bytes: [UInt8]) -> MediaInfo? {
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes) }
    if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return jpeg(bytes) }
    if bytes.starts(with: Array("RIFF".utf8)), bytes.count >= 12,
      Array(bytes[8..<12]) == Array("WEBP".utf8)
    {
      return webp(bytes)
    }
    if bytes.starts(with: Array("%PDF-".utf8)) { return pdf(bytes) }
    return nil
  }

  /// The IHDR chunk must come first, be 13 bytes long with a valid CRC, and name a non-empty
  /// image with a bit depth and colour type PNG allows.
  static func png(_ b: [UInt8]) -> MediaInfo? {
    guard b.count >= 33, be32(b, 8) == 13, Array(b[12..<16]) == Array("IHDR".utf8) else {
      return nil
    }
    let crc = b[12..<29].withUnsafeBufferPointer { crc32(0, $0.baseAddress, 17) }
    guard UInt32(crc) == be32(b, 29) else { return nil }
    let width = Int(be32(b, 16))
    let height = Int(be32(b, 20))
    let allowed: [UInt8: Set<UInt8>] = [
      0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]
    guard (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height),
      allowed[b[25]]?.contains(b[24]) == true
    else { return nil }
    return MediaInfo(type: .png, width: width, height: height)
  }

  /// Walks the marker segments to the first start-of-frame, which holds the size; a scan
  /// before any frame header, or a segment running past the end, is refused.
  static func jpeg(_ b: [UInt8]) -> MediaInfo? {
    var i = 2
    while i + 4 <= b.count {
      guard b[i] == 0xFF else { return nil }
      let marker = b[i + 1]
      if marker == 0xFF {  // fill byte
        i += 1
        continue
      }
      if (0xD0...0xD7).contains(marker) || marker == 0x01 {  // no length
        i += 2
        continue
      }
      let length = Int(be16(b, i + 2))
      guard length >= 2, i + 2 + length <= b.count else { return nil }
      if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
        guard length >= 8 else { return nil }
        let height = Int(be16(b, i + 5))
        let width = Int(be16(b, i + 7))
        guard width > 0, height > 0 else { return nil }
        return MediaInfo(type: .jpeg, width: width, height: height)
      }
      if marker == 0xDA || marker == 0xD9 { return nil }
      i += 2 + length
    }
    return nil
  }

  /// The first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended), each with the
  /// canvas size in its own layout.
  static func webp(_ b: [UInt8]) -> MediaInfo? {
    guard b.count >= 30 else { return nil }
    let chunk = String(decoding: b[12..<16], as: UTF8.self)
    let d = 20  // the chunk's data
    let size: (Int, Int)?
    switch chunk {
    case "VP8 ":
      guard b[d + 3] == 0x9D, b[d + 4] == 0x01, b[d + 5] == 0x2A else { return nil }
      size = (Int(le16(b, d + 6) & 0x3FFF), Int(le16(b, d + 8) & 0x3FFF))
    case "VP8L":
      guard b[d] == 0x2F else { return nil }
      let bits =
        UInt32(b[d + 1]) | UInt32(b[d + 2]) << 8 | UInt32(b[d + 3]) << 16
        | UInt32(b[d + 4]) << 24
      size = (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
    case "VP8X":
      size = (le24(b, d + 4) + 1, le24(b, d + 7) + 1)
    default:
      size = nil
    }
    guard let (width, height) = size, width > 0, height > 0 else { return nil }
    return MediaInfo(type: .webp, width: width, height: height)
  }

  /// `%PDF-d.d` first and an `%%EOF` in the last kilobyte: a whole PDF, not a truncated one.
  static func pdf(_ b: [UInt8]) -> MediaInfo? {
    guard b.count >= 16, (0x30...0x39).contains(b[5]), b[6] == 0x2E, (0x30...0x39).contains(b[7])
    else { return nil }
    let tail = b.suffix(1024)
    let eof = Array("%%EOF".utf8)
    let found = tail.indices.dropLast(eof.count - 1).contains { start in
      tail[start..<start + eof.count].elementsEqual(eof)
    }
    return found ? MediaInfo(type: .pdf) : nil
  }

  private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
  }
  private static func be16(_ b: [UInt8], _ i: Int) -> UInt16 {
    UInt16(b[i]) << 8 | UInt16(b[i + 1])
  }
  private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 {
    UInt16(b[i]) | UInt16(b[i + 1]) << 8
  }
  private static func le24(_ b: [UInt8], _ i: Int) -> Int {
    Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16
  }
}
