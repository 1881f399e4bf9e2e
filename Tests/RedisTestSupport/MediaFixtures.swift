import Foundation

/// The small real image and PDF files in `Tests/Fixtures/media` (see its README), for any test
/// that uploads one.
public enum MediaFixtures {
  public static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/media")

  /// A fixture's bytes: `python.jpg`, `python.png`, `python.webp`, `python.gif`, `result.pdf`.
  public static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
  }
}
