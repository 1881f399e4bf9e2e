/// Why an import stopped before or while reading; rows' own problems are in the report.
public enum ImportError: Error, Equatable, Sendable, CustomStringConvertible {
  case unknownColumns([String])
  case badColumns(String)
  case unreadable(path: String, reason: String)
  /// A JSON Lines line that is not a JSON object, or CSV the reader cannot read.
  case badInput(row: Int, reason: String)
  case server(String)

  public var description: String {
    switch self {
    case .unknownColumns(let names):
      "unknown column\(names.count == 1 ? "" : "s") \(names.joined(separator: ", ")); known: "
        + Columns.known.sorted().joined(separator: ", ")
    case .badColumns(let why): why
    case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
    case .badInput(let row, let reason): "row \(row): \(reason)"
    case .server(let why): why
    }
  }
}
