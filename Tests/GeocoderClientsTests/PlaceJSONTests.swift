import Datasets
import Foundation
import Geocoding
import Testing

/// `Place.list(json:)` (the geocode cache's entries read back) against what wrote them: the
/// cache's `JSONEncoder`, and `JSONSerialization`'s spacing and escapes.
@Suite("Places read back from JSON")
struct PlaceJSONTests {
  /// Texts that need every kind of escape: quotes, backslashes, slashes, controls, non-ASCII,
  /// characters outside the BMP.
  static let pieces = [
    "Vaduz", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "Zürich", "東京", "😀", " ", "",
    "a\u{301}", "\u{7F}", "\u{2028}",
  ]

  static func text(_ random: inout SeededGenerator) -> String {
    (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }
      .joined()
  }

  static func number(_ random: inout SeededGenerator) -> Double {
    switch Int.random(in: 0..<4, using: &random) {
    case 0: Double(Int.random(in: -180...180, using: &random))
    case 1: Double.random(in: -180...180, using: &random)
    case 2: Double.random(in: -1e-9...1e-9, using: &random)
    default: Double.random(in: -1e300...1e300, using: &random)
    }
  }

  static func place(_ random: inout SeededGenerator) -> Place {
    let maybe = { (random: inout SeededGenerator) in Bool.random(using: &random) }
    var ids: [String: String] = [:]
    for _ in 0..<Int.random(in: 0...3, using: &random) { ids[text(&random)] = text(&random) }
    return Place(
      lon: number(&random), lat: number(&random), label: text(&random),
      bbox: maybe(&random)
        ? BoundingBox(
          minLon: number(&random), minLat: number(&random), maxLon: number(&random),
          maxLat: number(&random)) : nil,
      confidence: Double.random(in: 0...1, using: &random), provider: text(&random), ids: ids,
      name: text(&random), region: maybe(&random) ? text(&random) : nil,
      countryCode: maybe(&random) ? text(&random) : nil,
      country: maybe(&random) ? text(&random) : nil,
      postcode: maybe(&random) ? text(&random) : nil,
      distance: maybe(&random) ? number(&random) : nil)
  }

  @Test("2,000 random lists written by JSONEncoder read back equal")
  func encoderRoundTrip() throws {
    var random = SeededGenerator(seed: 25)
    for _ in 0..<2_000 {
      let places = (0..<Int.random(in: 0...3, using: &random)).map { _ in
        Self.place(&random)
      }
      let json = String(decoding: try JSONEncoder().encode(places), as: UTF8.self)
      #expect(Place.list(json: json) == places, "\(json)")
    }
  }

  @Test("JSONSerialization's spacing, escapes and nulls read the same; unknown members skipped")
  func serializationRoundTrip() throws {
    var random = SeededGenerator(seed: 7)
    for _ in 0..<500 {
      let place = Self.place(&random)
      var object: [String: Any] = [
        "lon": place.lon, "lat": place.lat, "label": place.label,
        "confidence": place.confidence, "provider": place.provider, "name": place.name,
        "ids": place.ids, "region": place.region ?? NSNull(),
        "countryCode": place.countryCode ?? NSNull(), "country": place.country ?? NSNull(),
        "postcode": place.postcode ?? NSNull(), "distance": place.distance ?? NSNull(),
        // What a later version might add.
        "extra": ["a": [1, 2.5, "x", true, false, NSNull(), ["b": [] as [Any]]]],
      ]
      if let box = place.bbox {
        object["bbox"] = [box.minLon, box.minLat, box.maxLon, box.maxLat]
      } else {
        object["bbox"] = NSNull()
      }
      let data = try JSONSerialization.data(withJSONObject: [object], options: [.prettyPrinted])
      #expect(Place.list(json: String(decoding: data, as: UTF8.self)) == [place])
    }
  }

  static let vaduz = """
    [{"lon":9.52,"lat":47.14,"label":"Vaduz","confidence":1,"provider":"offline","name":"Vaduz"}]
    """

  @Test("a cached miss, escapes and numbers in every form JSON allows")
  func forms() {
    #expect(Place.list(json: "[]") == [])
    #expect(Place.list(json: " [ ] \n") == [])
    let escaped = """
      [{"lon":-0,"lat":1.5E+2,"label":"\\u00e9\\ud83d\\ude00\\/\\b\\f\\r","confidence":25e-2,\
      "provider":"p","name":"n","bbox":[0,-1,1e0,2.0],"ids":{}}]
      """
    let place = Place.list(json: escaped)?.first
    #expect(place?.label == "é😀/\u{8}\u{C}\r")
    #expect(place?.lat == 150)
    #expect(place?.confidence == 0.25)
    #expect(place?.lon == 0)
    #expect(place?.bbox == BoundingBox(minLon: 0, minLat: -1, maxLon: 1, maxLat: 2))
  }

  @Test("anything that is not a list of places is nil: every cut, bad numbers, escapes, types")
  func refusals() {
    #expect(Place.list(json: Self.vaduz) != nil)
    // Every proper prefix of a valid list.
    let bytes = Array(Self.vaduz.utf8)
    for end in 0..<bytes.count {
      #expect(Place.list(json: String(decoding: bytes[..<end], as: UTF8.self)) == nil)
    }
    let bad = [
      "", "{}", "[1]", "[null]", "[] []", "[],", Self.vaduz + "x",
      // A required member missing, null or of another type.
      #"[{"lat":47,"label":"V","confidence":1,"provider":"p","name":"V"}]"#,
      #"[{"lon":null,"lat":47,"label":"V","confidence":1,"provider":"p","name":"V"}]"#,
      #"[{"lon":"9","lat":47,"label":"V","confidence":1,"provider":"p","name":"V"}]"#,
      #"[{"lon":true,"lat":47,"label":"V","confidence":1,"provider":"p","name":"V"}]"#,
      #"[{"lon":9,"lat":47,"label":1,"confidence":1,"provider":"p","name":"V"}]"#,
    ]
    for json in bad { #expect(Place.list(json: json) == nil, "\(json)") }
    let member = { (text: String) in
      #"[{"lon":9,"lat":47,"label":"V","confidence":1,"provider":"p","name":"V","# + text + "}]"
    }
    let badMembers = [
      // Numbers JSON does not allow.
      #""distance":01"#, #""distance":1."#, #""distance":.5"#, #""distance":+1"#,
      #""distance":1e"#, #""distance":-"#, #""distance":NaN"#, #""distance":0x10"#,
      // Strings: a raw control character, an unknown escape, a lone or reversed surrogate, a
      // short \u.
      "\"region\":\"a\u{01}b\"", #""region":"\x""#, #""region":"\ud83d""#,
      #""region":"\ude00\ud83d""#, #""region":"\u12""#,
      // Members of the wrong shape.
      #""bbox":[1,2,3]"#, #""bbox":[1,2,3,"4"]"#, #""ids":{"a":1}"#, #""ids":[]"#,
      #""extra":tru"#, #""extra":[1,]"#, #""extra":{"a"}"#, #""extra":{,}"#,
    ]
    for text in badMembers {
      #expect(Place.list(json: member(text)) == nil, "\(text)")
    }
    // Nesting: what a later version might add is skipped up to 64 levels deep, refused beyond
    // (skipping recurses), never a crash.
    let nested = { (depth: Int) in
      member(
        #""extra":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
    }
    #expect(Place.list(json: nested(62)) != nil)
    #expect(Place.list(json: nested(63)) == nil)
    #expect(Place.list(json: nested(100_000)) == nil)
  }
}
