/// Why the gazetteer's data could not be loaded.
public enum GazetteerError: Error, Equatable, Sendable, CustomStringConvertible {
  case dataNotFound(searched: [String], hint: String)
  case unreadable(path: String)
  case malformed(line: Int, reason: String)

  public var description: String {
    switch self {
    case .dataNotFound(let searched, let hint):
      return "gazetteer data not found (looked for \(Gazetteer.fileName) in "
        + searched.joined(separator: ", ") + "): \(hint)"
    case .unreadable(let path): return "cannot read \(path)"
    case .malformed(let line, let reason):
      return "\(Gazetteer.fileName):\(line): \(reason)"
    }
  }
}
