/// A pull reader of JSON text (RFC 8259) over its UTF-8 bytes: the caller walks the structure
/// it expects, member by member, and nothing is built that it does not keep. Reading a cached
/// place through `JSONSerialization` (a dictionary of bridged values per place) took a sixth of
/// a warm-cache import's time.
public struct JSONScanner {
  public struct Invalid: Error {
    public init() {}
  }

  /// Arrays and objects nested deeper are refused: reading them recurses.
  static let maximumDepth = 64

  private let bytes: UnsafeBufferPointer<UInt8>
  private var at = 0
  private var depth = 0

  /// Runs `body` over `text`'s scanner; nil when `body` throws or leaves anything but white
  /// space unread.
  public static func read<T>(_ text: String, _ body: (inout JSONScanner) throws -> T) -> T? {
    var text = text
    return text.withUTF8 { bytes in
      var scanner = JSONScanner(bytes: bytes)
      guard let value = try? body(&scanner), scanner.next() == nil else { return nil }
      return value
    }
  }

  private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// An array: `element` reads each of its values.
  public mutating func array(_ element: (inout JSONScanner) throws -> Void) throws {
    try container(UInt8(ascii: "["), UInt8(ascii: "]")) { try element(&$0) }
  }

  /// An object: `member` reads the value of each name, in the text's order.
  public mutating func object(_ member: (inout JSONScanner, String) throws -> Void) throws {
    try container(UInt8(ascii: "{"), UInt8(ascii: "}")) { scanner in
      let name = try scanner.string()
      try scanner.expect(UInt8(ascii: ":"))
      try member(&scanner, name)
    }
  }

  /// Between `open` and `close`, `item` read for each comma-separated item; one level deeper.
  private mutating func container(
    _ open: UInt8, _ close: UInt8, _ item: (inout JSONScanner) throws -> Void
  ) throws {
    try expect(open)
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maximumDepth else { throw Invalid() }
    if next() == close {
      at += 1
      return
    }
    repeat { try item(&self) } while try more(before: close)
  }

  /// Whether the next value is `null`, which is then read.
  public mutating func null() -> Bool {
    guard next() == UInt8(ascii: "n") else { return false }
    return literal("null")
  }

  public mutating func number() throws -> Double {
    guard next() != nil else { throw Invalid() }
    let start = at
    if byte == UInt8(ascii: "-") { at += 1 }
    // An integer part of one 0, or of digits not starting with 0.
    if byte == UInt8(ascii: "0") { at += 1 } else { try digits() }
    if byte == UInt8(ascii: ".") {
      at += 1
      try digits()
    }
    if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
      at += 1
      if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { at += 1 }
      try digits()
    }
    guard let value = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else {
      throw Invalid()
    }
    // An integer's -0 is 0, as Foundation reads it; a fraction's -0.0 stays.
    let integral = !bytes[start..<at].contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == 0x65 }
    return integral && value == 0 ? 0 : value
  }

  public mutating func bool() throws -> Bool {
    _ = next()
    if literal("true") { return true }
    guard literal("false") else { throw Invalid() }
    return false
  }

  /// What the next value is, for a reader that takes any (left unread).
  public enum Kind: Sendable { case object, array, string, bool, null, number }

  public mutating func kind() -> Kind? {
    switch next() {
    case nil: nil
    case UInt8(ascii: "{"): .object
    case UInt8(ascii: "["): .array
    case UInt8(ascii: "\""): .string
    case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
    case UInt8(ascii: "n"): .null
    default: .number
    }
  }

  public mutating func string() throws -> String {
    try expect(UInt8(ascii: "\""))
    let start = at
    // Most strings have no escape: their bytes are the string's.
    while let byte, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
      guard byte >= 0x20 else { throw Invalid() }
      at += 1
    }
    guard let byte else { throw Invalid() }
    let text: String?
    if byte == UInt8(ascii: "\\") {
      var utf8 = Array(bytes[start..<at])
      try escaped(into: &utf8)
      text = String(validating: utf8, as: UTF8.self)
    } else {
      // The bytes are a String's (`read`), and a string's run between ASCII quotes is whole
      // UTF-8: nothing to validate (which took a third of reading a stored card).
      text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
    }
    at += 1
    guard let text else { throw Invalid() }
    return text
  }

  /// Reads any value, keeping nothing: a member the reader does not know.
  public mutating func skip() throws {
    switch next() {
    case UInt8(ascii: "{"): try object { scanner, _ in try scanner.skip() }
    case UInt8(ascii: "["): try array { try $0.skip() }
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "t"): guard literal("true") else { throw Invalid() }
    case UInt8(ascii: "f"): guard literal("false") else { throw Invalid() }
    case UInt8(ascii: "n"): guard literal("null") else { throw Invalid() }
    default: _ = try number()
    }
  }

  // MARK: The bytes

  private var byte: UInt8? { at < bytes.count ? bytes[at] : nil }

  /// The next byte that is not white space, left unread.
  private mutating func next() -> UInt8? {
    while let byte, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    return byte
  }

  private mutating func expect(_ expected: UInt8) throws {
    guard next() == expected else { throw Invalid() }
    at += 1
  }

  /// After an element: true at a comma (read), false at `close` (read).
  private mutating func more(before close: UInt8) throws -> Bool {
    switch next() {
    case UInt8(ascii: ","):
      at += 1
      return true
    case close:
      at += 1
      return false
    default: throw Invalid()
    }
  }

  private mutating func literal(_ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard bytes.count - at >= count,
      UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(
        bytes[at..<at + count])
    else { return false }
    at += count
    return true
  }

  private mutating func digits() throws {
    let start = at
    while let byte, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
    guard at > start else { throw Invalid() }
  }

  /// The rest of a string from its first backslash, appended to `utf8`; stops at the closing
  /// quote, unread.
  private mutating func escaped(into utf8: inout [UInt8]) throws {
    while let byte, byte != UInt8(ascii: "\"") {
      at += 1
      guard byte == UInt8(ascii: "\\") else {
        guard byte >= 0x20 else { throw Invalid() }
        utf8.append(byte)
        continue
      }
      guard let escape = self.byte else { throw Invalid() }
      at += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "u"): utf8.append(contentsOf: String(try scalar()).utf8)
      default: throw Invalid()
      }
    }
    guard byte != nil else { throw Invalid() }
  }

  /// The scalar of a `\u` escape (its `u` read), a surrogate pair's two escapes together.
  private mutating func scalar() throws -> Unicode.Scalar {
    let unit = try hex4()
    if (0xD800..<0xDC00).contains(unit) {
      guard literal("\\u") else { throw Invalid() }
      let low = try hex4()
      guard (0xDC00..<0xE000).contains(low) else { throw Invalid() }
      return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
    }
    guard let scalar = Unicode.Scalar(unit) else { throw Invalid() }
    return scalar
  }

  private mutating func hex4() throws -> UInt32 {
    guard bytes.count - at >= 4 else { throw Invalid() }
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let digit = byte.flatMap({ Character(Unicode.Scalar($0)).hexDigitValue }) else {
        throw Invalid()
      }
      value = value << 4 | UInt32(digit)
      at += 1
    }
    return value
  }
}
