import Foundation
import SpatialIndex

/// `FILTER <field> <value>`: cards whose field equals the value, ignoring case, accents and
/// surrounding space.
///
/// Inside the index traversal: each filterable field has 8 of the item's 32 attribute bits,
/// and a card sets the one bit its value hashes to. A filter asks for that bit, so the index
/// skips every node none of whose cards has it (one value in eight, for a field whose values
/// spread); the cards that pass are then compared exactly.
public struct CardFilter: Sendable, Equatable {
  public enum Field: String, Sendable, CaseIterable {
    case company, jobTitle, specialty, city

    /// The bits of the attribute word this field owns.
    var shift: UInt32 {
      switch self {
      case .company: 0
      case .jobTitle: 8
      case .specialty: 16
      case .city: 24
      }
    }

    /// The text of the card's fields this field compares.
    var key: SparseTexts.Key {
      switch self {
      case .company: .company
      case .jobTitle: .jobTitle
      // The card model has no specialty of its own: the short description says it.
      case .specialty: .description
      case .city: .city
      }
    }

    func value(in fields: CardFields) -> String? { fields.texts[key] }
  }

  public let field: Field
  public let value: String
  let normalized: String
  /// Whether `normalized` is ASCII: then an ASCII value is compared in place (`asciiMatch`).
  private let isASCII: Bool

  public init(field: Field, value: String) {
    self.field = field
    self.value = value
    normalized = Self.normalize(value)
    isASCII = normalized.utf8.allSatisfy { $0 < 0x80 }
  }

  func matches(_ fields: CardFields) -> Bool { matches(value: field.value(in: fields)) }

  /// Whether the held card `id` matches, its one text read packed.
  func matches(_ id: Int64, in cards: HeldCards) -> Bool {
    matches(value: cards.text(field.key, of: id))
  }

  private func matches(value: String?) -> Bool {
    guard let value else { return false }
    if isASCII, let equal = Self.asciiMatch(value, normalized) { return equal }
    return Self.normalize(value) == normalized
  }

  /// `normalize(value) == normalized` for an ASCII `value` and `normalized`, without making a
  /// folded copy (Foundation's folding took most of a filtered search's time); nil when
  /// `value` is not ASCII.
  static func asciiMatch(_ value: String, _ normalized: String) -> Bool? {
    guard let bytes = asciiTrimmed(value) else { return nil }
    return bytes.elementsEqual(normalized.utf8) { folded($0) == folded($1) }
  }

  /// An ASCII value's bytes without the white space around them; nil when it is not ASCII.
  private static func asciiTrimmed(_ value: String) -> Substring.UTF8View? {
    let bytes = value.utf8
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return bytes[bytes.endIndex...] }
    return bytes[first...last]
  }

  /// ASCII's folding (`normalize`'s, for a byte below 0x80): lower case.
  @inline(__always) private static func folded(_ byte: UInt8) -> UInt8 {
    byte >= 65 && byte <= 90 ? byte + 32 : byte
  }

  /// ASCII's white space and newlines, as `CharacterSet.whitespacesAndNewlines` has them.
  @inline(__always) private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 32 || (9...13).contains(byte)
  }

  var bit: UInt32 { Self.bit(field, normalized) }

  /// The index filter for all of `filters` at once.
  static func indexFilter(_ filters: [CardFilter]) -> Filter {
    Filter.has(filters.reduce(0) { $0 | $1.bit })
  }

  static func attributes(of fields: CardFields) -> UInt32 {
    Field.allCases.reduce(0) { bits, field in
      guard let value = field.value(in: fields) else { return bits }
      return bits | bit(field, normalize(value))
    }
  }

  private static func bit(_ field: Field, _ normalized: String) -> UInt32 {
    // FNV-1a: the same on every run (Swift's Hasher is seeded per process).
    var hash: UInt32 = 2_166_136_261
    for byte in normalized.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return 1 << (field.shift + hash % 8)
  }

  /// The value folded (case and accents) and trimmed of white space, as filters compare it.
  /// An ASCII value (most) is folded here: Foundation's folding and trimming were a quarter of
  /// a 1M-card start (each card's filter bits).
  static func normalize(_ value: String) -> String {
    guard let bytes = asciiTrimmed(value) else { return foundationNormalize(value) }
    return String(decoding: bytes.map(folded), as: UTF8.self)
  }

  /// `normalize` through Foundation: any value.
  static func foundationNormalize(_ value: String) -> String {
    value.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
