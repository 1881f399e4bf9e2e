import Datasets
import Foundation
import Testing

@testable import Cards

/// The store's card JSON read straight into fields (`StoredJSON`): every card's stored text is
/// read, into the fields written; any other text answers nil (the caller then reads it through
/// Foundation) or exactly the fields Foundation's reading gives, never other fields.
@Suite struct StoredJSONTests {
  /// What `CardFields.stored` answers without the direct reader: nil for an error.
  static func throughFoundation(_ text: String) -> CardFields? {
    try? JSONInput.fields(JSONInput.object(text), checking: false)
  }

  /// The direct reader answers nil or what Foundation's reading does.
  static func agrees(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let read = StoredJSON.fields(text) else { return }
    #expect(read == throughFoundation(text), "\(text)", sourceLocation: sourceLocation)
  }

  @Test("random cards' stored JSON reads into the fields written")
  func randomCards() throws {
    var generator = SeededGenerator(seed: 20_261_127)
    for _ in 0..<1_000 {
      let fields = RandomCard.fields(using: &generator)
      let json = fields.json()
      #expect(StoredJSON.fields(json) == fields, "\(json)")
      #expect(try CardFields.stored(json) == fields)
    }
  }

  @Test("escapes, surrogate pairs, numbers' forms, space and repeated names read as Foundation")
  func corners() throws {
    let texts = [
      #"{"firstName":"\"\\\/\b\f\n\r\tx","company":"\u00e9\u4e2d\ud83d\ude00","jobTitle":"é"}"#,
      #"{"firstName":"é中😀 plain","address":{"city":"  Oslo \n","country":""}}"#,
      #"{"firstName":"A","location":{"lon":-0,"lat":1.5e1,"source":"gps"},"showOnMap":true}"#,
      #"{"firstName":"A","location":{"lat":-85.05112878,"lon":180}}"#,
      #"{"firstName":"A","location":{"lon":1E-7,"lat":12.345678901}}"#,
      " {\n\t\"firstName\" : \"B\" ,\r\n \"webLinks\" : [ { \"url\" : \"https://a.example\" } ] } ",
      #"{"firstName":"A","webLinks":[{},{"url":"u","displayText":"t"},{"url":" "}]}"#,
      #"{"firstName":"A","company":"X","company":"Y"}"#,
      #"{"firstName":"A","company":"X","company":" "}"#,
    ]
    for text in texts {
      let read = try #require(StoredJSON.fields(text), "\(text)")
      #expect(read == Self.throughFoundation(text), "\(text)")
    }
  }

  @Test("what is not JSON, or not what json() writes, answers nil")
  func refusals() {
    let texts = [
      "", "[]", "\"a\"", "{", "{\"a\"}", "{\"firstName\":}", "{\"firstName\":\"A\",}",
      "{\"firstName\":\"A\"} x", "{'firstName':'A'}", #"{"firstName":"A","showOnMap":1}"#,
      #"{"firstName":"A","location":{"lon":01,"lat":1}}"#, "{\"firstName\":\"\u{1}\"}",
      #"{"firstName":"\x"}"#, #"{"firstName":"\ud83d"}"#, #"{"firstName":"\u12"}"#, "{}",
      #"{"lastName":"Li"}"#, #"{"firstName":" "}"#, #"{"firstName":null}"#,
      #"{"firstName":"A","company":null}"#, #"{"firstName":"A","createdAt":"x"}"#,
      #"{"firstName":"A","address":{"town":"x"}}"#, #"{"firstName":"A","address":"x"}"#,
      #"{"firstName":"A","location":{"lon":181,"lat":1}}"#,
      #"{"firstName":"A","location":{"lon":1,"lat":86}}"#,
      #"{"firstName":"A","location":{"lon":1}}"#,
      #"{"firstName":"A","location":{"lon":1,"lat":1,"source":"moon"}}"#,
      #"{"firstName":"A","location":{"lon":"1","lat":1}}"#,
      #"{"firstName":"A","webLinks":[{"displayText":"t"}]}"#,
      #"{"firstName":"A","webLinks":[{"url":"u","rel":"me"}]}"#,
      #"{"firstName":"A","webLinks":{}}"#, #"{"firstName":"A","webLinks":[1]}"#,
      "{\"firstName\":\"A\",\"webLinks\":["
        + Array(repeating: #"{"url":"u"}"#, count: 21).joined(separator: ",") + "]}",
      String(repeating: "{\"a\":", count: 70) + "1" + String(repeating: "}", count: 70),
    ]
    for text in texts {
      #expect(StoredJSON.fields(text) == nil, "\(text.debugDescription)")
    }
  }

  @Test("random cards' JSON cut or with a byte changed: nil, or Foundation's fields")
  func mutations() {
    var generator = SeededGenerator(seed: 20_261_129)
    let bytes = Array(#"{}[],:" -.e0159tfnul\"#.utf8)
    for _ in 0..<2_000 {
      var json = Array(RandomCard.fields(using: &generator).json().utf8)
      let at = Int.random(in: 0..<json.count, using: &generator)
      switch Int.random(in: 0..<3, using: &generator) {
      case 0: json.removeSubrange(at...)
      case 1: json[at] = bytes.randomElement(using: &generator)!
      default: json.insert(bytes.randomElement(using: &generator)!, at: at)
      }
      Self.agrees(String(decoding: json, as: UTF8.self))
    }
  }
}
