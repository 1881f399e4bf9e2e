import MediaFiles
import RedisTestSupport
import Testing

@Suite struct MediaInspectorTests {
  @Test func realFilesAreRecognisedWithTheirSize() throws {
    #expect(
      MediaInspector.inspect(try MediaFixtures.bytes("python.jpg"))
        == MediaInfo(type: .jpeg, width: 16, height: 16))
    #expect(
      MediaInspector.inspect(try MediaFixtures.bytes("python.png"))
        == MediaInfo(type: .png, width: 16, height: 16))
    #expect(
      MediaInspector.inspect(try MediaFixtures.bytes("python.webp"))
        == MediaInfo(type: .webp, width: 16, height: 16))
    #expect(MediaInspector.inspect(try MediaFixtures.bytes("result.pdf")) == MediaInfo(type: .pdf))
  }

  @Test func otherFormatsAndTextAreRefused() throws {
    #expect(MediaInspector.inspect(try MediaFixtures.bytes("python.gif")) == nil)
    #expect(MediaInspector.inspect(Array("<html><script>alert(1)</script>".utf8)) == nil)
    #expect(MediaInspector.inspect([]) == nil)
  }

  /// Magic bytes alone are not enough: every prefix of a real file short of its header, and a
  /// header with a flipped byte, is refused.
  @Test func truncatedOrCorruptHeadersAreRefused() throws {
    for name in ["python.jpg", "python.png", "python.webp"] {
      let bytes = try MediaFixtures.bytes(name)
      for length in [3, 8, 12, 16, 20, 24] {
        #expect(MediaInspector.inspect(Array(bytes.prefix(length))) == nil, "\(name) \(length)")
      }
    }
    var png = try MediaFixtures.bytes("python.png")
    png[17] ^= 0x01  // the width, now failing IHDR's CRC
    #expect(MediaInspector.inspect(png) == nil)
    var zeroWidth = try MediaFixtures.bytes("python.jpg")
    let frame = try #require(
      zeroWidth.indices.first { zeroWidth[$0] == 0xFF && zeroWidth[$0 + 1] == 0xC0 })
    zeroWidth[frame + 7] = 0
    zeroWidth[frame + 8] = 0
    #expect(MediaInspector.inspect(zeroWidth) == nil)
    let pdf = try MediaFixtures.bytes("result.pdf")
    #expect(MediaInspector.inspect(Array(pdf.prefix(pdf.count - 8))) == nil)
  }

  /// Random bytes behind each magic prefix never crash the inspector and almost never pass.
  @Test func randomBytesBehindMagicNeverCrash() {
    var generator = SystemRandomNumberGenerator()
    let magics: [[UInt8]] = [
      [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
      Array("RIFF\0\0\0\0WEBPVP8 ".utf8), Array("RIFF\0\0\0\0WEBPVP8L".utf8),
      Array("RIFF\0\0\0\0WEBPVP8X".utf8), Array("%PDF-1.7".utf8),
    ]
    for magic in magics {
      for length in 0..<200 {
        let tail = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        _ = MediaInspector.inspect(magic + tail)
      }
    }
    // A PNG header of random bytes passes only with a matching CRC.
    let passed = (0..<2000).filter { _ in
      let tail = (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }
      return MediaInspector.inspect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + tail) != nil
    }
    #expect(passed.isEmpty)
  }
}
