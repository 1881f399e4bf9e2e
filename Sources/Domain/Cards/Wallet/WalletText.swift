import Foundation

/// A held card's words as `WALLET.SEARCH` sees them, by column: a word is a run of letters and
/// digits, lowercased with its accents removed (the query's words are made the same way).
struct WalletText {
  /// The columns' weights in the ranking: name, company, job title, email, city, about text.
  static let weights: [UInt32] = [10, 5, 5, 3, 2, 1]

  /// Each distinct word with its weighted count (the sum of its occurrences' column weights).
  var words: [String: UInt32] = [:]
  /// How many words the card's text has (bm25's document length).
  var length: UInt32 = 0

  init(_ card: Card) {
    let f = card.fields
    let columns: [String?] = [
      [f.prefix, f.firstName, f.middleName, f.lastName].compactMap { $0 }.joined(separator: " "),
      f.company, f.jobTitle, f.email, f.address?.city, f.aboutMe,
    ]
    for (column, text) in columns.enumerated() {
      guard let text else { continue }
      for word in Self.words(text) {
        words[word, default: 0] += Self.weights[column]
        length += 1
      }
    }
  }

  /// The query's words (at most 16), folded as a card's are.
  static func query(_ text: String) -> [String] {
    Array(text.split { !($0.isLetter || $0.isNumber) }.prefix(16).map(fold).filter { !$0.isEmpty })
  }

  static func words(_ text: String) -> [String] {
    // Most text is ASCII: split and lowercase its bytes without Foundation's folding.
    guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
      return text.split { !($0.isLetter || $0.isNumber) }.map(fold).filter { !$0.isEmpty }
    }
    var words: [String] = []
    var word: [UInt8] = []
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte | 0x20)
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        word.append(byte)
      default:
        if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
        word.removeAll(keepingCapacity: true)
      }
    }
    if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
    return words
  }

  static func fold(_ word: Substring) -> String {
    word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
  }
}
