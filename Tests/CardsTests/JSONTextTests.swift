import Cards
import Foundation
import Testing

/// json() is written directly (`JSONText`): it must be what JSONSerialization writes with sorted
/// keys and unescaped slashes, byte for byte, whatever the text and numbers hold.
@Suite struct JSONTextTests {
  static func serialized(_ fields: CardFields) throws -> String {
    let data = try JSONSerialization.data(
      withJSONObject: fields.jsonObject(), options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }

  @Test(arguments: [
    "plain", #"quo"te"#, #"back\slash"#, "a/b", "line\nbreak", "tab\there", "cr\rlf",
    "\u{8}\u{C}\u{1}\u{1F}\u{7F}", "é東京🙂", "\u{2028}", "",
  ])
  func textIsEscapedAsJSONSerializationEscapesIt(_ text: String) throws {
    let fields = CardFields(
      firstName: text, lastName: text, company: text, aboutMe: text,
      address: CardAddress(street: text, city: text),
      webLinks: [CardWebLink(url: "https://x.example/" + text, displayText: text)])
    #expect(fields.json() == (try Self.serialized(fields)))
  }

  @Test(arguments: [
    (2.0, 48.0), (-0.0, 0.0), (2.3522219, 48.856614), (1e-7, -85.05112878), (180.0, -1e-9),
    (0.1 + 0.2, 123.456),
  ])
  func numbersAreWrittenAsJSONSerializationWritesThem(_ lon: Double, _ lat: Double) throws {
    let fields = CardFields(
      firstName: "Ann", location: CardLocation(longitude: lon, latitude: lat), showOnMap: true)
    #expect(fields.json() == (try Self.serialized(fields)))
  }

  @Test func everyFieldInJSONSerializationsKeyOrder() throws {
    let fields = try CardFields.parse(CardFieldsRoundTripTests.everyField, isPro: true)
    #expect(fields.json() == (try Self.serialized(fields)))
  }
}
