import Foundation

/// A JSON reader for the fields the store holds (`CardFields.json()`'s text), giving Swift
/// values (`String`, `Double`, `Bool`, `NSNull`, `[Any]`, `[String: Any]`), which `JSONInput`
/// reads as it reads `JSONSerialization`'s. Foundation's parser, and its bridging of every value
/// to an object, was a third of a 1M-card start; this reads the same text in one pass over its
/// bytes. Anything it does not take (it is strict: no control characters in strings, no
/// leading zeros, nothing after the value) answers nil, and the caller reads the text with
/// Foundation, whose error then stands.
enum StoredJSON {
  static func object(_ text: String) -> [String: Any]? {
    var text = text
    return text.withUTF8 { bytes in
      var reader = Reader(bytes: bytes)
      guard let object = reader.value() as? [String: Any] else { return nil }
      reader.skipSpace()
      return reader.at == bytes.count ? object : nil
    }
  }

  private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    /// Nesting left: a stored card is two levels deep; a text deeper than this is not one.
    var depth = 32

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func skipSpace() {
      while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    mutating func value() -> Any? {
      skipSpace()
      guard at < bytes.count else { return nil }
      switch bytes[at] {
      case UInt8(ascii: "{"): return object()
      case UInt8(ascii: "["): return array()
      case UInt8(ascii: "\""): return string()
      case UInt8(ascii: "t"): return literal("true", true)
      case UInt8(ascii: "f"): return literal("false", false)
      case UInt8(ascii: "n"): return literal("null", NSNull())
      default: return number()
      }
    }

    private mutating func object() -> [String: Any]? {
      depth -= 1
      guard depth > 0 else { return nil }
      defer { depth += 1 }
      at += 1
      var object: [String: Any] = [:]
      skipSpace()
      if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
        at += 1
        return object
      }
      while true {
        skipSpace()
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), let key = string() else {
          return nil
        }
        skipSpace()
        guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
        at += 1
        guard let value = value() else { return nil }
        object[key] = value
        skipSpace()
        guard at < bytes.count else { return nil }
        at += 1
        if bytes[at - 1] == UInt8(ascii: "}") { return object }
        guard bytes[at - 1] == UInt8(ascii: ",") else { return nil }
      }
    }

    private mutating func array() -> [Any]? {
      depth -= 1
      guard depth > 0 else { return nil }
      defer { depth += 1 }
      at += 1
      var array: [Any] = []
      skipSpace()
      if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
        at += 1
        return array
      }
      while true {
        guard let value = value() else { return nil }
        array.append(value)
        skipSpace()
        guard at < bytes.count else { return nil }
        at += 1
        if bytes[at - 1] == UInt8(ascii: "]") { return array }
        guard bytes[at - 1] == UInt8(ascii: ",") else { return nil }
      }
    }

    private mutating func literal(_ word: StaticString, _ value: Any) -> Any? {
      let count = word.utf8CodeUnitCount
      guard bytes.count - at >= count,
        (0..<count).allSatisfy({ bytes[at + $0] == word.utf8Start[$0] })
      else { return nil }
      at += count
      return value
    }

    /// JSON's grammar for a number, read by `Double`.
    private mutating func number() -> Double? {
      let start = at
      func digits() -> Int {
        let first = at
        while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
        return at - first
      }
      if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
      let integer = at
      guard digits() > 0, bytes[integer] != 0x30 || at - integer == 1 else { return nil }
      let whole = at
      if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
        at += 1
        guard digits() > 0 else { return nil }
      }
      if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
        at += 1
        if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") {
          at += 1
        }
        guard digits() > 0 else { return nil }
      }
      let value = Double(
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self))
      // An integer's -0 is Foundation's 0; a fraction's -0.0 stays.
      return at == whole && value == 0 ? 0 : value
    }

    private mutating func string() -> String? {
      at += 1
      let start = at
      // The common case: no escape, copied at once.
      while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\") {
        guard bytes[at] >= 0x20 else { return nil }
        at += 1
      }
      guard at < bytes.count else { return nil }
      var text = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<at]))
      while bytes[at] == UInt8(ascii: "\\") {
        at += 1
        guard at < bytes.count else { return nil }
        let escape = bytes[at]
        at += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
          guard let scalar = unicodeEscape() else { return nil }
          text += Array(String(Character(scalar)).utf8)
        default: return nil
        }
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\") {
          guard bytes[at] >= 0x20 else { return nil }
          text.append(bytes[at])
          at += 1
        }
        guard at < bytes.count else { return nil }
      }
      at += 1
      return String(validating: text, as: UTF8.self)
    }

    /// `\uXXXX` (the `\u` read), a surrogate pair's two as one scalar.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
      guard let high = hex4() else { return nil }
      guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
      guard bytes.count - at >= 2, bytes[at] == UInt8(ascii: "\\"),
        bytes[at + 1] == UInt8(ascii: "u")
      else { return nil }
      at += 2
      guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
      return Unicode.Scalar(0x10000 + (high - 0xD800) << 10 + (low - 0xDC00))
    }

    private mutating func hex4() -> UInt32? {
      guard bytes.count - at >= 4 else { return nil }
      var value: UInt32 = 0
      for _ in 0..<4 {
        guard let digit = Character(Unicode.Scalar(bytes[at])).hexDigitValue else { return nil }
        value = value << 4 | UInt32(digit)
        at += 1
      }
      return value
    }
  }
}
