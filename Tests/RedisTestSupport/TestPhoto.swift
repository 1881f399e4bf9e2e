/// Photos the inspector accepts: a JPEG whose frame header says 32×16 and a PNG whose IHDR
/// says 3×2, each followed by `payload` (what makes one photo's bytes differ from another's).
public enum TestPhoto {
  public static func jpeg(_ payload: [UInt8] = Array("jpeg payload".utf8)) -> [UInt8] {
    [
      0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x20, 0x03, 0x01, 0x22, 0x00,
      0x02, 0x11, 0x01, 0x03, 0x11, 0x01,
    ] + payload + [0xFF, 0xD9]
  }

  public static func png(_ payload: [UInt8] = Array("png payload".utf8)) -> [UInt8] {
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
      + [73, 72, 68, 82, 0, 0, 0, 3, 0, 0, 0, 2, 8, 6, 0, 0, 0] + [0x9D, 0x74, 0x66, 0x1A]
      + payload
  }
}
