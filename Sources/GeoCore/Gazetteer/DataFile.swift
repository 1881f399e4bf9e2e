import Foundation

extension Gazetteer {
  public static let fileName = "gazetteer.tsv.gz"
  public static let environmentVariable = "CARDATLAS_DATA"

  /// The data file: in `$CARDATLAS_DATA` when set, else `./data`, else the `data/` folder of the
  /// source checkout (the rules `Datasets.DataDirectory` follows for cities.csv).
  public static func locateData(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    currentDirectory: String = FileManager.default.currentDirectoryPath
  ) throws(GazetteerError) -> URL {
    let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
    if let explicit = environment[environmentVariable], !explicit.isEmpty {
      let url = URL(fileURLWithPath: explicit, isDirectory: true).appendingPathComponent(fileName)
      guard exists(url) else {
        throw .dataNotFound(
          searched: [url.path], hint: "\(environmentVariable) is set but has no \(fileName)")
      }
      return url
    }
    let working = URL(fileURLWithPath: currentDirectory, isDirectory: true)
      .appendingPathComponent("data/\(fileName)").standardizedFileURL
    if exists(working) { return working }
    // Sources/GeoCore/Gazetteer/DataFile.swift → the package root → data.
    let source = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
      .appendingPathComponent("data/\(fileName)").standardizedFileURL
    if exists(source) { return source }
    throw .dataNotFound(
      searched: [working.path, source.path],
      hint: "run from the repository root, or set \(environmentVariable) to the data folder")
  }
}
