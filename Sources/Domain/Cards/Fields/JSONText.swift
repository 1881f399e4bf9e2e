/// A JSON object's text written directly, byte for byte as `JSONSerialization` writes it with
/// `.sortedKeys` and `.withoutEscapingSlashes` (its key order: case ignored; its escapes; whole
/// numbers without a fraction). Cards are written on every create, update and reply, and
/// JSONSerialization (a dictionary bridged, keys compared with a locale) cost more than the
/// rest of a CARD.CREATE.
public struct JSONText {
  private var members: [(key: String, value: String)] = []

  public init() {}

  public mutating func add(_ key: String, _ value: String?) {
    guard let value else { return }
    members.append((key, Self.quoted(value)))
  }

  public mutating func add(_ key: String, _ value: Bool) {
    members.append((key, value ? "true" : "false"))
  }

  public mutating func add(_ key: String, _ value: Int64) { members.append((key, String(value))) }

  /// A finite number.
  public mutating func add(_ key: String, number value: Double) {
    members.append((key, Self.number(value)))
  }

  /// A finite number as JSONSerialization writes it: whole numbers without a fraction.
  static func number(_ value: Double) -> String {
    var text = "\(value)"
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
  }

  public mutating func add(_ key: String, object: JSONText) { members.append((key, object.text)) }

  public mutating func add(_ key: String, array: [JSONText]) {
    members.append((key, "[" + array.map(\.text).joined(separator: ",") + "]"))
  }

  public var text: String {
    let inOrder = zip(members, members.dropFirst()).allSatisfy { !Self.precedes($1.key, $0.key) }
    let sorted = inOrder ? members : members.sorted { Self.precedes($0.key, $1.key) }
    var out = "{"
    for (i, member) in sorted.enumerated() {
      if i > 0 { out += "," }
      out += Self.quoted(member.key)
      out += ":"
      out += member.value
    }
    return out + "}"
  }

  /// Whether key `a` sorts before `b`, ASCII letters compared without case, as
  /// JSONSerialization orders keys (ours are ASCII), without making lowercased copies.
  static func precedes(_ a: String, _ b: String) -> Bool {
    @inline(__always) func folded(_ byte: UInt8) -> UInt8 {
      byte >= 65 && byte <= 90 ? byte + 32 : byte
    }
    return a.utf8.lexicographicallyPrecedes(b.utf8) { folded($0) < folded($1) }
  }

  public static func quoted(_ text: String) -> String {
    // Most text needs no escape: copied whole.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
      return "\"" + text + "\""
    }
    var out = "\""
    out.reserveCapacity(text.utf8.count + 2)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{8}": out += "\\b"
      case "\u{C}": out += "\\f"
      case _ where scalar.value < 0x20:
        out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}
