import Foundation

/// Case and accent folding for search keys, exactly as data/make_gazetteer.py folds the data:
/// NFKD without combining marks, lower case, a few letters NFKD leaves whole ("ß" → "ss"), and
/// every run of characters other than letters, marks and digits made one space. So "ZÜRICH",
/// "Zürich" and "zurich" fold alike, as do "Saint-Étienne" and "saint etienne".
enum Folding {
  static func fold(_ text: String) -> String {
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return foldASCII(text) }
    let lowered = stripMarks(stripMarks(text).lowercased())
    var out = String.UnicodeScalarView()
    var pendingSpace = false
    for scalar in lowered.unicodeScalars {
      let mapped = special[scalar].map { Array($0.unicodeScalars) } ?? [scalar]
      for s in mapped {
        if isKept(s) {
          if pendingSpace && !out.isEmpty { out.append(" ") }
          pendingSpace = false
          out.append(s)
        } else {
          pendingSpace = true
        }
      }
    }
    return String(out)
  }

  private static func foldASCII(_ text: String) -> String {
    var out = [UInt8]()
    out.reserveCapacity(text.utf8.count)
    var pendingSpace = false
    for byte in text.utf8 {
      let lower = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
      if (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) {
        if pendingSpace && !out.isEmpty { out.append(0x20) }
        pendingSpace = false
        out.append(lower)
      } else {
        pendingSpace = true
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func stripMarks(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars
    where scalar.properties.canonicalCombiningClass == .notReordered {
      out.append(scalar)
    }
    return String(out)
  }

  private static func isKept(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
      .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
      return true
    default: return false
    }
  }

  private static let special: [Unicode.Scalar: String] = [
    "ß": "ss", "æ": "ae", "ø": "o", "đ": "d", "ł": "l", "œ": "oe", "ı": "i", "þ": "th",
    "ð": "d", "ħ": "h", "ŧ": "t", "ŋ": "n", "ς": "σ",
  ]
}
