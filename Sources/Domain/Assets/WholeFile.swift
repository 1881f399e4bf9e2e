import CZlib
import MediaFiles

/// What `MediaInspector` does not check: that the upload is one whole file of its type, not
/// a valid header on other bytes (a PNG header on an HTML body) or a truncated file. Nothing is
/// decoded: the checks walk the container's structure.
enum WholeFile {
  static func check(_ b: [UInt8], _ type: MediaType) -> Bool {
    switch type {
    case .png: png(b)
    case .jpeg: b.count >= 4 && b[b.count - 2] == 0xFF && b[b.count - 1] == 0xD9
    case .webp: b.count >= 12 && le32(b, 4) == b.count - 8
    // The inspector found `%%EOF` in the last kilobyte.
    case .pdf: true
    }
  }

  /// Every chunk after the signature has a length inside the file and a matching CRC, and the
  /// last is IEND, ending the file.
  static func png(_ b: [UInt8]) -> Bool {
    var i = 8
    while i + 12 <= b.count {
      let length = Int(be32(b, i))
      guard length <= b.count - i - 12 else { return false }
      let crc = b[(i + 4)..<(i + 8 + length)].withUnsafeBufferPointer {
        crc32(0, $0.baseAddress, uInt($0.count))
      }
      guard UInt32(crc) == be32(b, i + 8 + length) else { return false }
      let isEnd = b[(i + 4)..<(i + 8)].elementsEqual("IEND".utf8)
      i += 12 + length
      if isEnd { return i == b.count }
    }
    return false
  }

  private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
  }

  private static func le32(_ b: [UInt8], _ i: Int) -> Int {
    Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
  }
}
