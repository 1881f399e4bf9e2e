import Foundation

/// The `cardatlas` executable the tests run: the one SwiftPM built beside the test bundle, or
/// the one `CARDATLAS_EXECUTABLE` names (to run the tests against another build, a release one
/// say).
public enum CardAtlasExecutable {
  public struct NotFound: Error, CustomStringConvertible {
    public var description: String { "the cardatlas executable was not built next to the tests" }
  }

  public static func url() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["CARDATLAS_EXECUTABLE"] {
      return URL(fileURLWithPath: path)
    }
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("cardatlas")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      folder = folder.deletingLastPathComponent()
    }
    throw NotFound()
  }
}
