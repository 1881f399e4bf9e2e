import Cards
import Foundation
import Testing

/// `read(object:)` (what `cardatlas import` hands the domain) and `parse(json, isPro:readAs:)`
/// give what `parse` gives the same object's JSON, and refuse what it refuses.
@Suite struct CardFieldsReadTests {
  /// An object as an import row makes it: Swift strings, Bool and Doubles.
  static var row: [String: Any] {
    [
      "firstName": " Ann ", "lastName": "Lee", "twitter": "@ann_lee", "company": "Atlas",
      "showOnMap": true, "cvHeader": "Curriculum",
      "address": ["city": "Vaduz", "country": "LI"],
      "location": ["lon": 9.52154, "lat": 47.14151, "source": "geocoded"],
    ]
  }

  static func json(_ object: [String: Any]) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
  }

  @Test func readGivesWhatParseGives() throws {
    let read = try CardFields.read(object: Self.row)
    #expect(read == (try CardFields.parse(Self.json(Self.row), isPro: true)))
    #expect(read.firstName == "Ann")
    #expect(read.twitter == "ann_lee")
    #expect(try CardFields.parse(Self.json(Self.row), isPro: true, readAs: read) == read)
  }

  @Test func proFieldsAreRefusedOnceTheOwnerIsKnown() throws {
    let read = try CardFields.read(object: Self.row)
    #expect(throws: CardFieldError(field: "cvHeader", reason: "Pro only")) {
      try CardFields.parse(Self.json(Self.row), isPro: false, readAs: read)
    }
  }

  @Test func readRefusesWhatParseRefuses() {
    for object: [String: Any] in [
      ["lastName": "Lee"],
      ["firstName": "Ann", "code": "x"],
      ["firstName": "Ann", "nickname": "x"],
      ["firstName": "Ann", "showOnMap": "yes"],
      ["firstName": "Ann", "location": ["lon": 200.0, "lat": 0.0]],
      ["firstName": "Ann", "address": ["town": "Vaduz"]],
    ] {
      var readError: CardFieldError?
      do { _ = try CardFields.read(object: object) } catch { readError = error }
      #expect(readError != nil)
      #expect(readError == refusal(Self.json(object), isPro: true))
    }
  }
}
