import Foundation

/// This executable, by its size and time of change: what one build kept of its memory
/// (`CardsHeldFile`), another build may lay out otherwise, so it reads only its own.
public enum BuildIdentity {
  public static let current: String = {
    let path =
      FileManager.default.fileExists(atPath: "/proc/self/exe")
      ? "/proc/self/exe" : CommandLine.arguments[0]
    var info = stat()
    guard stat(path, &info) == 0 else { return "unknown" }
    return "\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }()
}
