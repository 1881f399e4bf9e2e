import Foundation
import Geocoding

/// The fields the store holds (`CardFields.json()`'s text) read by `JSONScanner` into Swift
/// values (`String`, `Double`, `Bool`, `NSNull`, `[Any]`, `[String: Any]`), which `JSONInput`
/// reads as it reads `JSONSerialization`'s. Foundation's parser, and its bridging of every value
/// to an object, was a third of a 1M-card start. Anything the scanner does not take (it is
/// strict) answers nil, and the caller reads the text with Foundation, whose error then stands.
enum StoredJSON {
  static func object(_ text: String) -> [String: Any]? {
    JSONScanner.read(text) { try value(&$0) } as? [String: Any]
  }

  private static func value(_ scanner: inout JSONScanner) throws -> Any {
    switch scanner.kind() {
    case .object:
      var object: [String: Any] = [:]
      try scanner.object { scanner, name in object[name] = try value(&scanner) }
      return object
    case .array:
      var array: [Any] = []
      try scanner.array { array.append(try value(&$0)) }
      return array
    case .string: return try scanner.string()
    case .bool: return try scanner.bool()
    case .null:
      _ = scanner.null()
      return NSNull()
    case .number: return try scanner.number()
    case nil: throw JSONScanner.Invalid()
    }
  }
}
