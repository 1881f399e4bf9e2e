import Datasets
import Foundation
import Testing

@testable import Cards

/// The store's card JSON read without Foundation (`StoredJSON`): the same values as
/// `JSONSerialization` on random cards and on JSON's corners, and nil (Foundation then reads
/// it) for what is not strict JSON.
@Suite struct StoredJSONTests {
  /// A JSON value as one text, numbers as Doubles, keys sorted: Foundation's `NSNumber`s and
  /// the reader's `Double`s and `Bool`s compared alike.
  static func canonical(_ value: Any) -> String {
    switch value {
    case let object as [String: Any]:
      return "{"
        + object.keys.sorted().map { "\($0.debugDescription):\(canonical(object[$0]!))" }
        .joined(separator: ",") + "}"
    case let array as [Any]: return "[" + array.map(canonical).joined(separator: ",") + "]"
    case let text as String: return text.debugDescription
    default:
      if JSONInput.isNull(value) { return "null" }
      if type(of: value) == Bool.self { return "\(value as! Bool)" }
      if let number = value as? NSNumber, JSONInput.isBoolean(number) {
        return "\(number.boolValue)"
      }
      return "\(JSONInput.number(value).map { $0.bitPattern } ?? 0)"
    }
  }

  static func foundation(_ text: String) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8))
  }

  @Test("random cards' stored JSON reads as Foundation reads it, into the same fields")
  func randomCards() throws {
    var generator = SeededGenerator(seed: 20_261_127)
    for _ in 0..<1_000 {
      let fields = RandomCard.fields(using: &generator)
      let json = fields.json()
      let read = try #require(StoredJSON.object(json), "\(json)")
      #expect(Self.canonical(read) == Self.canonical(Self.foundation(json)!), "\(json)")
      #expect(try CardFields.stored(json) == fields)
    }
  }

  @Test("escapes, surrogate pairs, numbers, nesting and space read as Foundation reads them")
  func corners() throws {
    let texts = [
      #"{"a":"\"\\\/\b\f\n\r\t","b":"\u00e9\u4e2d\ud83d\ude00","c":"é中😀 plain"}"#,
      #"{"n":[0,-0,1.5,-2.25e3,1E-7,123456789012345678,0.1,5e+2],"t":true,"f":false,"z":null}"#,
      " {\n\t\"a\" : [ { \"b\" : [ [ ] , { } ] } ] ,\r\n \"c\":\"\" } ",
      #"{"dup":1,"dup":2}"#,
      "{}",
    ]
    for text in texts {
      let read = try #require(StoredJSON.object(text), "\(text)")
      #expect(Self.canonical(read) == Self.canonical(Self.foundation(text)!), "\(text)")
    }
  }

  @Test("what is not strict JSON, or not an object, answers nil")
  func refusals() {
    let texts = [
      "", "[]", "\"a\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x", "{'a':1}",
      "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":tru}", "{\"a\":\"\u{1}\"}",
      #"{"a":"\x"}"#, #"{"a":"\ud83d"}"#, #"{"a":"\ude00"}"#, #"{"a":"\u12"}"#, "{\"a\":\"abc}",
      String(repeating: "{\"a\":", count: 70) + "1" + String(repeating: "}", count: 70),
    ]
    for text in texts {
      #expect(StoredJSON.object(text) == nil, "\(text.debugDescription)")
    }
  }
}
