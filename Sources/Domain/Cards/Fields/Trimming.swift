import Foundation

extension String {
  /// `trimmingCharacters(in: set)` (a set of white space), asked of Foundation only when an end
  /// is white space: most values have none, and Foundation's trimming was the largest cost of a
  /// bulk import's field rules.
  func trimmed(_ set: CharacterSet) -> String {
    let scalars = unicodeScalars
    guard
      scalars.first?.properties.isWhitespace == true
        || scalars.last?.properties.isWhitespace == true
    else { return self }
    return trimmingCharacters(in: set)
  }
}
