import Foundation

extension String {
  /// `trimmingCharacters(in: set)` (a set of white space), asked of Foundation only when an end
  /// may be white space: most values have none, and Foundation's trimming was the largest cost
  /// of a bulk import's field rules. An end that is ASCII and not white space (no ASCII white
  /// space is outside 0x09–0x0D and 0x20) is decided from its byte; the set is not even made
  /// then (making it was 1.3% of a node's start, Unicode's tables 2%).
  func trimmed(_ set: @autoclosure () -> CharacterSet) -> String {
    if let first = utf8.first, let last = utf8.last, Self.isPlainASCII(first),
      Self.isPlainASCII(last)
    {
      return self
    }
    let scalars = unicodeScalars
    guard
      scalars.first?.properties.isWhitespace == true
        || scalars.last?.properties.isWhitespace == true
    else { return self }
    return trimmingCharacters(in: set())
  }

  /// An ASCII byte that is not white space.
  private static func isPlainASCII(_ byte: UInt8) -> Bool {
    byte < 0x80 && byte != 0x20 && !(0x09...0x0D).contains(byte)
  }
}
