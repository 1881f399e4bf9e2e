import Foundation
import MediaFiles
import RedisTestSupport
import Testing

@Suite struct MediaFilesTests {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("cardatlas-media-\(UUID().uuidString)").path

  @Test func writtenFilesReadBackAndAreRemoved() throws {
    let files = try MediaFiles(directory: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let photo = try MediaFixtures.bytes("python.jpg")
    let name = try files.write(photo, type: .jpeg)
    #expect(name.hasSuffix(".jpg"))
    #expect(try files.read(name) == photo)
    #expect(files.size(name) == photo.count)
    let other = try files.write(photo, type: .jpeg)
    #expect(other != name)
    files.remove(name)
    #expect(throws: MediaFilesError.missing(name)) { try files.read(name) }
    #expect(try files.read(other) == photo)
    // Nothing but the finished file is left behind.
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [other])
  }

  @Test func namesThatAreNotOursNeverReachTheFileSystem() throws {
    let files = try MediaFiles(directory: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for name in ["../cardatlas.sqlite", "/etc/passwd", "x.jpg", String(repeating: "a", count: 32)] {
      #expect(throws: MediaFilesError.badName(name)) { try files.read(name) }
      files.remove(name)
    }
  }

  /// What a crash between a file's write and its row's commit leaves (a file no row names, or
  /// a partly written file) goes at startup; files rows name stay.
  @Test func sweepRemovesFilesNoRowNames() throws {
    let files = try MediaFiles(directory: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let kept = try files.write(try MediaFixtures.bytes("python.png"), type: .png)
    let orphan = try files.write(try MediaFixtures.bytes("result.pdf"), type: .pdf)
    FileManager.default.createFile(
      atPath: directory + "/.partial-0123456789abcdef0123456789abcdef.jpg", contents: Data([1]))
    #expect(files.sweep(keeping: [kept]) == 2)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [kept])
    #expect(throws: MediaFilesError.missing(orphan)) { try files.read(orphan) }
  }
}
