import Foundation

/// What happened to one row, as `--report` writes it.
struct RowReport {
  enum Status: String, CaseIterable {
    case created, updated, unchanged
    /// The geocoder's best match was below `--min-confidence`: the card is written without a
    /// location, and the candidate is reported for review.
    case lowConfidence = "low-confidence"
    /// Nothing matched the address: the card is written without a location.
    case notFound = "not-found"
    case failed
  }

  let row: Int
  let externalId: String
  var status: Status
  var reason = ""
  var lon: Double?
  var lat: Double?
  var label = ""
  var confidence: Double?

  static let header = "row,externalId,status,reason,lon,lat,label,confidence\n"

  var csvLine: String {
    [
      String(row), Self.quoted(externalId), status.rawValue, Self.quoted(reason),
      lon.map { String($0) } ?? "", lat.map { String($0) } ?? "", Self.quoted(label),
      confidence.map { String(format: "%.3f", $0) } ?? "",
    ].joined(separator: ",") + "\n"
  }

  /// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
  static func quoted(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
    var quoted = "\""
    for character in text {
      quoted.append(character)
      if character == "\"" { quoted.append("\"") }
    }
    return quoted + "\""
  }
}

/// The report file, appended a chunk at a time; on resume it is cut back to what the last
/// checkpoint recorded, so that no row appears twice.
final class ReportFile {
  private let handle: FileHandle
  private(set) var size: UInt64

  init(path: String, resumeAt size: UInt64?) throws {
    if let size, FileManager.default.fileExists(atPath: path) {
      handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
      try handle.truncate(atOffset: size)
      try handle.seekToEnd()
      self.size = size
    } else {
      guard FileManager.default.createFile(atPath: path, contents: Data(RowReport.header.utf8))
      else { throw ImportError.unreadable(path: path, reason: "cannot create the report") }
      handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
      self.size = try handle.seekToEnd()
    }
  }

  func append(_ rows: [RowReport]) throws {
    let data = Data(rows.map(\.csvLine).joined().utf8)
    try handle.write(contentsOf: data)
    try handle.synchronize()
    size += UInt64(data.count)
  }

  func close() { try? handle.close() }
}
