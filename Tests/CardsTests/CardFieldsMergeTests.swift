import Datasets
import Foundation
import Testing

@testable import Cards

/// CARD.UPDATE: RFC 7396 merge patches applied to cards.
@Suite struct CardFieldsMergeTests {
  /// RFC 7396 Appendix A, every example: (target, patch, result).
  static let rfcExamples: [(String, String, String)] = [
    (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
    (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
    (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
    (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
    (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
    (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
    (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
    (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
    (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
    (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
    (#"{"a":"foo"}"#, "null", "null"),
    (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
    (#"{"e":null}"#, #"{"a":1}"#, #"{"a":1,"e":null}"#),
    ("[1,2]", #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
    ("{}", #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
  ]

  @Test(arguments: rfcExamples)
  func theRFCsExamples(_ target: String, _ patch: String, _ result: String) throws {
    func value(_ text: String) throws -> Any {
      try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
    let merged = JSONInput.mergePatch(try value(target), try value(patch))
    #expect(canonical(merged) == canonical(try value(result)))
  }

  static let ann = CardFields(
    firstName: "Ann", lastName: "Lee", jobTitle: "Engineer", email: "ann@example.com",
    address: CardAddress(street: "1 Rue de Rivoli", city: "Paris", country: "France"),
    location: CardLocation(longitude: 2.3522, latitude: 48.8566, source: .gps), showOnMap: true,
    twitter: "ann_lee",
    webLinks: [
      CardWebLink(url: "https://ann.example", displayText: "Home"),
      CardWebLink(url: "https://blog.ann.example"),
    ])

  func merged(_ patch: String, into fields: CardFields = ann, isPro: Bool = false) throws
    -> CardFields
  {
    try fields.merging(patch, isPro: isPro)
  }

  @Test func anEmptyPatchChangesNothing() throws {
    #expect(try merged("{}") == Self.ann)
    #expect(try merged("  { }  ") == Self.ann)
  }

  @Test func replacesAndAddsValues() throws {
    var expected = Self.ann
    expected.jobTitle = "CTO"
    expected.company = "Acme"
    #expect(try merged(#"{"jobTitle":"CTO","company":"  Acme "}"#) == expected)
    var hidden = Self.ann
    hidden.showOnMap = false
    #expect(try merged(#"{"showOnMap":false}"#) == hidden)
  }

  @Test func nullRemovesAField() throws {
    var expected = Self.ann
    expected.lastName = nil
    #expect(try merged(#"{"lastName":null}"#) == expected)
    // An empty string is absent too.
    #expect(try merged(#"{"lastName":""}"#) == expected)
    #expect(try merged(#"{"lastName":"  "}"#) == expected)
    // Containers and defaults.
    #expect(try merged(#"{"address":null}"#).address == nil)
    #expect(try merged(#"{"location":null}"#).location == nil)
    #expect(try merged(#"{"webLinks":null}"#).webLinks == [])
    #expect(try merged(#"{"showOnMap":null}"#).showOnMap == false)
    // Removing what is not there is no change.
    #expect(try merged(#"{"company":null}"#) == Self.ann)
  }

  @Test func addressesMergeMemberByMember() throws {
    var expected = Self.ann
    expected.address?.city = "Lyon"
    expected.address?.postcode = "69001"
    #expect(try merged(#"{"address":{"city":"Lyon","postcode":"69001"}}"#) == expected)
    expected = Self.ann
    expected.address?.street = nil
    #expect(try merged(#"{"address":{"street":null}}"#) == expected)
    #expect(try merged(#"{"address":{"street":""}}"#) == expected)
    // With every part removed there is no address.
    #expect(
      try merged(#"{"address":{"street":null,"city":null,"country":null}}"#).address == nil)
    // Onto a card without one, nulls in the patch are dropped (RFC 7396).
    let bare = CardFields(firstName: "Bo")
    #expect(
      try merged(#"{"address":{"city":"Oslo","street":null}}"#, into: bare).address
        == CardAddress(city: "Oslo"))
    #expect(
      refusal(merging: #"{"address":{"city":{"name":null}}}"#, into: bare)
        == invalid("address.city", "must be a string"))
  }

  /// A location is one point: a patch's replaces the card's (its source too), so a point
  /// moved by hand is never left marked as the phone's, and the same patch is valid or not
  /// whatever the card held.
  @Test func aLocationIsReplacedWhole() throws {
    var expected = Self.ann
    expected.location = CardLocation(longitude: 2.35, latitude: 48.0, source: .manual)
    #expect(try merged(#"{"location":{"lon":2.35,"lat":48}}"#) == expected)
    expected.location?.source = .geocoded
    #expect(try merged(#"{"location":{"lon":2.35,"lat":48,"source":"geocoded"}}"#) == expected)
    expected.location = nil
    #expect(try merged(#"{"location":null}"#) == expected)
    for card in [Self.ann, CardFields(firstName: "Bo")] {
      #expect(
        refusal(merging: #"{"location":{"lon":2}}"#, into: card)
          == invalid("location.lat", "required"))
      #expect(
        refusal(merging: #"{"location":{"source":"manual"}}"#, into: card)
          == invalid("location.lon", "required"))
    }
  }

  @Test func arraysAreReplacedWhole() throws {
    var expected = Self.ann
    expected.webLinks = [CardWebLink(url: "https://new.example", displayText: "New")]
    #expect(
      try merged(#"{"webLinks":[{"url":"https://new.example","displayText":"New"}]}"#) == expected)
    expected.webLinks = []
    #expect(try merged(#"{"webLinks":[]}"#) == expected)
    // An object patch does not merge into the array: it replaces it, and is refused.
    #expect(
      refusal(merging: #"{"webLinks":{"0":{"url":null}}}"#, into: Self.ann)
        == invalid("webLinks", "must be an array"))
  }

  @Test func patchesAreRefusedForTheSameReasonsAsCards() {
    let ann = Self.ann
    #expect(refusal(merging: "[]", into: ann) == invalid("json", "not a JSON object"))
    #expect(refusal(merging: "null", into: ann) == invalid("json", "not a JSON object"))
    #expect(refusal(merging: #""Ann""#, into: ann) == invalid("json", "not a JSON object"))
    #expect(refusal(merging: "{", into: ann) == invalid("json", "not valid JSON"))
    #expect(refusal(merging: "", into: ann) == invalid("json", "not valid JSON"))
    #expect(
      refusal(merging: "{}" + String(repeating: " ", count: 32 * 1024), into: ann)
        == invalid("json", "longer than 32768 bytes"))
    // Unknown and server-set names are refused even to remove them.
    #expect(
      refusal(merging: #"{"nickname":"Annie"}"#, into: ann) == invalid("nickname", "unknown field"))
    #expect(
      refusal(merging: #"{"nickname":null}"#, into: ann) == invalid("nickname", "unknown field"))
    #expect(
      refusal(merging: #"{"address":{"zip":null}}"#, into: ann)
        == invalid("address.zip", "unknown field"))
    #expect(
      refusal(merging: #"{"location":{"alt":1}}"#, into: ann)
        == invalid("location.alt", "unknown field"))
    #expect(refusal(merging: #"{"id":null}"#, into: ann) == invalid("id", "set by the server"))
    #expect(
      refusal(merging: #"{"isActive":true}"#, into: ann) == invalid("isActive", "set by the server")
    )
    #expect(
      refusal(merging: #"{"showOnMap":"yes"}"#, into: ann)
        == invalid("showOnMap", "must be true or false"))
  }

  @Test func aPatchThatBreaksTheCardIsRefusedAndTheCardIsUnchanged() {
    let ann = Self.ann
    let breaking: [(String, CardFieldError)] = [
      (#"{"firstName":null}"#, invalid("firstName", "required")),
      (#"{"firstName":""}"#, invalid("firstName", "required")),
      (#"{"email":"ann"}"#, invalid("email", "not an email address")),
      (#"{"twitter":"ann lee"}"#, invalid("twitter", "must be an http or https URL or a handle")),
      (#"{"address":{"city":"Par\nis"}}"#, invalid("address.city", "must be a single line")),
      (
        #"{"location":{"lon":2,"lat":90}}"#,
        invalid("location.lat", "must be between -85.05112878 and 85.05112878")
      ),
      (
        #"{"webLinks":[\#(Array(repeating: #"{"url":"https://a.example"}"#, count: 21).joined(separator: ","))]}"#,
        invalid("webLinks", "at most 20 links")
      ),
      (#"{"lastName":"Lee","jobTitle":5}"#, invalid("jobTitle", "must be a string")),
    ]
    for (patch, error) in breaking {
      var card = ann
      do {
        card = try card.merging(patch, isPro: true)
        Issue.record("accepted \(patch)")
      } catch let refused {
        #expect(refused == error, "\(patch)")
      }
      #expect(card == ann)
    }
  }

  @Test func theMergedCardMustFitAnInput() throws {
    // Each field within its limit and each patch under 32 KiB, but the card as a whole over
    // it: its JSON could not be parsed again.
    let url = "https://example.com/" + String(repeating: "a", count: 2_000)
    let links = (0..<10).map {
      #"{"url":"\#(url)\#($0)","displayText":"\#(String(repeating: "x", count: 100))"}"#
    }
    let card = try Self.ann.merging(
      #"{"webLinks":[\#(links.joined(separator: ","))]}"#, isPro: false)
    #expect(card.webLinks.count == 10)
    let wide = "😀"  // 4 bytes
    let texts =
      #"{"aboutMe":"\#(String(repeating: wide, count: 2_000))","#
      + #""customMessage":"\#(String(repeating: wide, count: 500))","#
      + #""description":"\#(String(repeating: wide, count: 300))","#
      + #""company":"\#(String(repeating: wide, count: 150))"}"#
    #expect(texts.utf8.count < 32 * 1024)
    #expect(refusal(merging: texts, into: card) == invalid("json", "longer than 32768 bytes"))
    #expect(refusal(merging: texts, into: Self.ann) == nil)
  }

  @Test func cvFieldsWithoutPro() throws {
    var pro = Self.ann
    pro.cvUrl = "https://ann.example/cv.pdf"
    pro.cvHeader = "CV"
    // A card made while Pro stays editable without Pro, its CV kept...
    var expected = pro
    expected.jobTitle = "CTO"
    #expect(try merged(#"{"jobTitle":"CTO"}"#, into: pro, isPro: false) == expected)
    // ...or removed...
    expected = pro
    expected.cvUrl = nil
    #expect(try merged(#"{"cvUrl":null}"#, into: pro, isPro: false) == expected)
    // ...and a client sending the whole card back with the same CV is fine,
    #expect(try merged(pro.json(), into: pro, isPro: false) == pro)
    // but new CV values need Pro.
    #expect(
      refusal(merging: #"{"cvUrl":"https://ann.example/cv2.pdf"}"#, into: pro, isPro: false)
        == invalid("cvUrl", "Pro only"))
    #expect(
      refusal(merging: #"{"cvDescription":"Ten years"}"#, into: pro, isPro: false)
        == invalid("cvDescription", "Pro only"))
    #expect(
      try merged(#"{"cvDescription":"Ten years"}"#, into: pro, isPro: true).cvDescription
        == "Ten years")
  }

  /// Any card becomes any other by the patch between them.
  @Test func aDiffPatchTurnsOneCardIntoAnother() throws {
    var generator = SeededGenerator(seed: 7_396)
    for _ in 0..<300 {
      let from = RandomCard.fields(using: &generator)
      let to = RandomCard.fields(using: &generator)
      let patch = canonical(diff(from.jsonObject(), to.jsonObject())).dropFirst().dropLast()
      #expect(try from.merging(String(patch), isPro: true) == to, "\(patch)")
    }
  }

  /// RFC 7396's patch from `a` to `b`: b's members, nulls for a's members b lacks, objects
  /// diffed member by member.
  func diff(_ a: [String: Any], _ b: [String: Any]) -> [String: Any] {
    var patch: [String: Any] = [:]
    for name in a.keys where b[name] == nil { patch[name] = NSNull() }
    for (name, value) in b {
      if let old = a[name] as? [String: Any], let new = value as? [String: Any] {
        patch[name] = diff(old, new)
      } else {
        patch[name] = value
      }
    }
    return patch
  }
}
