import Foundation

/// Where the repository's `data/` folder is.
public enum DataDirectory {
  /// The environment variable that names the data folder explicitly.
  public static let environmentVariable = "CARDATLAS_DATA"

  /// The file whose presence marks a data folder.
  public static let marker = "cities.csv"

  /// The data folder: `$CARDATLAS_DATA` when set (it must then hold `cities.csv`), else `./data`
  /// under the current directory when it holds `cities.csv`, else the `data/` folder of the
  /// package this file was compiled from (found from `#filePath`).
  public static func locate(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    currentDirectory: String = FileManager.default.currentDirectoryPath
  ) throws(DatasetError) -> URL {
    let fileManager = FileManager.default
    func hasMarker(_ url: URL) -> Bool {
      fileManager.fileExists(atPath: url.appendingPathComponent(marker).path)
    }
    if let explicit = environment[environmentVariable], !explicit.isEmpty {
      let url = URL(fileURLWithPath: explicit, isDirectory: true).standardizedFileURL
      guard hasMarker(url) else {
        throw .dataDirectoryNotFound(
          searched: [url.path], hint: "\(environmentVariable) is set but has no \(marker)")
      }
      return url
    }
    let working = URL(fileURLWithPath: currentDirectory, isDirectory: true)
      .appendingPathComponent("data", isDirectory: true).standardizedFileURL
    if hasMarker(working) { return working }
    // Sources/GeoCore/Datasets/DataDirectory.swift → the package root → data.
    let source = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent()  // Datasets
      .deletingLastPathComponent()  // GeoCore
      .deletingLastPathComponent()  // Sources
      .deletingLastPathComponent()  // package root
      .appendingPathComponent("data", isDirectory: true).standardizedFileURL
    if hasMarker(source) { return source }
    throw .dataDirectoryNotFound(
      searched: [working.path, source.path],
      hint: "run from the repository root, or set \(environmentVariable) to the data folder")
  }

  /// A file in the data folder.
  public static func file(_ name: String) throws(DatasetError) -> URL {
    try locate().appendingPathComponent(name)
  }
}

public enum DatasetError: Error, Equatable, Sendable, CustomStringConvertible {
  case dataDirectoryNotFound(searched: [String], hint: String)
  case unreadable(path: String)
  case malformed(path: String, line: Int, reason: String)
  case empty(path: String)

  public var description: String {
    switch self {
    case .dataDirectoryNotFound(let searched, let hint):
      return "data directory not found (looked for \(DataDirectory.marker) in "
        + searched.joined(separator: ", ") + "): \(hint)"
    case .unreadable(let path):
      return "cannot read \(path)"
    case .malformed(let path, let line, let reason):
      return "\(path):\(line): \(reason)"
    case .empty(let path):
      return "\(path) has no usable cities (none with a population above 0)"
    }
  }
}
