import Foundation

/// How providers without a score of their own get one (docs/GEOCODING-HTTP.md).
enum Confidence {
  /// The share of the query's words (case and accents folded) that the result contains, as a
  /// word or a word's start ("Austr" for "Austrasse"): 1 when the result names everything asked
  /// for, less when it fell back to the street or the town.
  static func coverage(query: String, result: [String]) -> Double {
    let asked = words(query)
    guard !asked.isEmpty else { return 0 }
    let found = Set(result.flatMap(words))
    let matched = asked.filter { word in
      found.contains(word) || found.contains { $0.hasPrefix(word) || $0.hasSuffix(word) }
    }
    return Double(matched.count) / Double(asked.count)
  }

  /// Reverse geocoding: 1 within 10 m, falling to 0 at 1 km.
  static func ofDistance(_ metres: Double) -> Double {
    clamp(1 - max(0, metres - 10) / 990)
  }

  static func clamp(_ value: Double) -> Double {
    value.isFinite ? min(1, max(0, value)) : 0
  }

  static func words(_ text: String) -> [String] {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      .replacingOccurrences(of: "ß", with: "ss")
      .split { !($0.isLetter || $0.isNumber) }
      .map(String.init)
  }
}
