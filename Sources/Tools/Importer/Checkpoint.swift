import Foundation

/// Where an interrupted import resumes: the last row whose chunk was fully written (durable)
/// and reported, keyed by the input file's identity and the target, so that a changed file or
/// another target starts over. Written atomically (a temporary file renamed) after each chunk;
/// removed when the import finishes.
struct Checkpoint: Codable, Equatable {
  struct Identity: Codable, Equatable {
    var path: String
    var size: UInt64
    var modified: Double
    var target: String
  }

  var identity: Identity
  var row = 0
  var reportSize: UInt64?
  var counts: [String: Int] = [:]

  static func identity(input: String, target: String) throws -> Identity {
    let attributes = try FileManager.default.attributesOfItem(atPath: input)
    return Identity(
      path: URL(fileURLWithPath: input).standardizedFileURL.path,
      size: (attributes[.size] as? NSNumber)?.uint64Value ?? 0,
      modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0,
      target: target)
  }

  /// The saved checkpoint at `path` if it is for this input and target.
  static func load(_ path: String, identity: Identity) -> Checkpoint? {
    guard let data = FileManager.default.contents(atPath: path),
      let saved = try? JSONDecoder().decode(Checkpoint.self, from: data),
      saved.identity == identity
    else { return nil }
    return saved
  }

  func save(_ path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}
