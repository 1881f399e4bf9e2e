import Cards
import ErrorLines
import Foundation
import Testing

/// CARD.CREATE's rules: the input's shape, field names, types, required and empty fields,
/// lengths, control characters, and Pro-only fields.
@Suite struct CardFieldsParseTests {
  @Test func theSmallestCard() throws {
    let fields = try CardFields.parse(#"{"firstName":"Ann"}"#, isPro: false)
    #expect(fields == CardFields(firstName: "Ann"))
    #expect(fields.showOnMap == false)
    #expect(fields.webLinks.isEmpty)
  }

  @Test(arguments: ["[]", "5", #""Ann""#, "null", "true", #"[{"firstName":"Ann"}]"#])
  func refusesJSONThatIsNotAnObject(_ json: String) {
    #expect(refusal(json) == invalid("json", "not a JSON object"))
    #expect(refusal(json)?.message == "INVALID json: not a JSON object")
  }

  @Test(arguments: [
    "", "{", "firstName=Ann", #"{"firstName":}"#, #"{"firstName":"Ann"} {}"#, "{'firstName':'Ann'}",
  ])
  func refusesTextThatIsNotJSON(_ json: String) {
    #expect(refusal(json) == invalid("json", "not valid JSON"))
  }

  @Test func refusesInputOver32KiB() {
    let padding = String(repeating: " ", count: 32 * 1024)
    #expect(
      refusal(#"{"firstName":"Ann"}"# + padding) == invalid("json", "longer than 32768 bytes"))
    let exactly = #"{"firstName":"Ann"}"# + String(repeating: " ", count: 32 * 1024 - 19)
    #expect(exactly.utf8.count == 32 * 1024)
    #expect(refusal(exactly) == nil)
  }

  @Test func refusesUnknownFields() {
    #expect(refusal(card("nickname", "Annie")) == invalid("nickname", "unknown field"))
    #expect(refusal(card("nickname", "Annie"))?.message == "INVALID nickname: unknown field")
    #expect(refusal(card(#""nickname":null"#)) == invalid("nickname", "unknown field"))
    // Names are case-sensitive, as in the card model.
    #expect(refusal(card("FirstName", "Ann")) == invalid("FirstName", "unknown field"))
    #expect(refusal(card("username", "abc123")) == invalid("username", "unknown field"))
    #expect(
      refusal(card(#""address":{"zip":"75001"}"#)) == invalid("address.zip", "unknown field"))
    #expect(
      refusal(card(#""location":{"lon":2,"lat":48,"alt":35}"#))
        == invalid("location.alt", "unknown field"))
    #expect(
      refusal(card(#""location":{"longitude":2,"latitude":48}"#))
        == invalid("location.latitude", "unknown field"))
    #expect(
      refusal(card(#""webLinks":[{"url":"https://a.example","label":"A"}]"#))
        == invalid("webLinks[0].label", "unknown field"))
  }

  @Test func unknownNamesAreShownOnOneShortLine() {
    let long = String(repeating: "n", count: 1_000)
    #expect(
      refusal(card(long, "x"))
        == invalid(String(repeating: "n", count: 64) + "...", "unknown field"))
    #expect(refusal(card("nick\r\nname", "x")) == invalid("nick??name", "unknown field"))
    #expect(
      refusal(card(#""address":{"\#(long)":"x"}"#))
        == invalid("address." + String(repeating: "n", count: 64) + "...", "unknown field"))
  }

  @Test func deepNestingIsRefused() {
    // Foundation's parser stops at 512 levels; below that, no field takes nested objects.
    let deep = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
    #expect(refusal(card(#""address":"# + deep)) == invalid("json", "not valid JSON"))
    let nested =
      String(repeating: #"{"a":"#, count: 400) + "null" + String(repeating: "}", count: 400)
    #expect(refusal(card(#""aboutMe":"# + nested)) == invalid("aboutMe", "must be a string"))
    let fields = CardFields(firstName: "Ann")
    #expect(
      refusal(merging: #"{"aboutMe":"# + nested + "}", into: fields)
        == invalid("aboutMe", "must be a string"))
    #expect(
      refusal(merging: #"{"aboutMe":"# + deep + "}", into: fields)
        == invalid("json", "not valid JSON"))
  }

  @Test(arguments: [
    "id", "code", "slug", "url", "isPrimary", "isActive", "ownerId", "createdAt", "updatedAt",
  ])
  func refusesServerSetFields(_ name: String) {
    #expect(refusal(card("\(quoted(name)):\"x\"")) == invalid(name, "set by the server"))
    #expect(refusal(card("\(quoted(name)):null")) == invalid(name, "set by the server"))
    #expect(refusal(card("\(quoted(name)):true"))?.message == "INVALID \(name): set by the server")
  }

  @Test func namesAreCheckedFirstInNameOrder() {
    #expect(refusal(#"{"zeta":1,"code":"x","alpha":2}"#) == invalid("alpha", "unknown field"))
    #expect(refusal(#"{"firstName":5,"id":"x"}"#) == invalid("id", "set by the server"))
  }

  @Test func refusesWrongTypes() {
    #expect(refusal(#"{"firstName":5}"#) == invalid("firstName", "must be a string"))
    #expect(refusal(#"{"firstName":["Ann"]}"#) == invalid("firstName", "must be a string"))
    #expect(refusal(card(#""lastName":true"#)) == invalid("lastName", "must be a string"))
    #expect(refusal(card(#""email":{}"#)) == invalid("email", "must be a string"))
    #expect(refusal(card(#""showOnMap":1"#)) == invalid("showOnMap", "must be true or false"))
    #expect(refusal(card(#""showOnMap":0"#)) == invalid("showOnMap", "must be true or false"))
    #expect(refusal(card(#""showOnMap":"true""#)) == invalid("showOnMap", "must be true or false"))
    #expect(refusal(card(#""address":"1 Main St""#)) == invalid("address", "must be an object"))
    #expect(refusal(card(#""address":{"city":7}"#)) == invalid("address.city", "must be a string"))
    #expect(refusal(card(#""location":[2,48]"#)) == invalid("location", "must be an object"))
    #expect(
      refusal(card(#""location":{"lon":"2","lat":48}"#))
        == invalid("location.lon", "must be a number"))
    #expect(
      refusal(card(#""location":{"lon":2,"lat":true}"#))
        == invalid("location.lat", "must be a number"))
    #expect(
      refusal(card(#""location":{"lon":2,"lat":48,"source":1}"#))
        == invalid("location.source", "must be a string"))
    #expect(refusal(card(#""webLinks":{}"#)) == invalid("webLinks", "must be an array"))
    #expect(
      refusal(card(#""webLinks":["https://a.example"]"#))
        == invalid("webLinks[0]", "must be an object"))
    #expect(
      refusal(card(#""webLinks":[{"url":"https://a.example"},null]"#))
        == invalid("webLinks[1]", "must be an object"))
    #expect(
      refusal(card(#""webLinks":[{"url":5}]"#)) == invalid("webLinks[0].url", "must be a string"))
  }

  @Test(arguments: [
    "{}", #"{"firstName":null}"#, #"{"firstName":""}"#, #"{"firstName":" \n\t "}"#,
    #"{"lastName":"Lee"}"#,
  ])
  func firstNameIsRequired(_ json: String) {
    #expect(refusal(json) == invalid("firstName", "required"))
    #expect(refusal(json)?.message == "INVALID firstName: required")
  }

  @Test func stringsAreTrimmedAndEmptyOnesAbsent() throws {
    let fields = try CardFields.parse(
      #"{"firstName":"  Ann \n","lastName":"","middleName":"   ","company":null,"#
        + #""jobTitle":"\tCTO ","email":" ann@example.com ","#
        + #""address":{"city":" Paris ","street":"","country":null},"#
        + #""webLinks":[{"url":" https://ann.example ","displayText":"  "}]}"#,
      isPro: false)
    #expect(fields.firstName == "Ann")
    #expect(fields.lastName == nil)
    #expect(fields.middleName == nil)
    #expect(fields.company == nil)
    #expect(fields.jobTitle == "CTO")
    #expect(fields.email == "ann@example.com")
    #expect(fields.address == CardAddress(city: "Paris"))
    #expect(fields.webLinks == [CardWebLink(url: "https://ann.example")])
  }

  @Test func absentOrNullContainersAreEmpty() throws {
    let fields = try CardFields.parse(
      card(
        #""address":{"city":"","street":null},"location":null,"webLinks":null,"showOnMap":null"#),
      isPro: false)
    #expect(fields == CardFields(firstName: "Ann"))
  }

  /// (field, its limit in characters): one line each.
  static let singleLineLimits: [(String, Int)] = [
    ("firstName", 100), ("middleName", 100), ("lastName", 100), ("prefix", 100),
    ("credentials", 100), ("pronouns", 100), ("customMessageHeader", 100), ("description", 300),
    ("jobTitle", 150), ("company", 150), ("cvHeader", 100), ("cvDisplayText", 100),
  ]
  static let multiLineLimits: [(String, Int)] = [
    ("aboutMe", 2_000), ("customMessage", 500), ("cvDescription", 2_000),
  ]

  @Test(arguments: singleLineLimits + multiLineLimits)
  func textLengthLimits(_ field: String, _ limit: Int) {
    let base = field == "firstName" ? "{}" : card()
    func with(_ value: String) -> String {
      var object = try! JSONSerialization.jsonObject(with: Data(base.utf8)) as! [String: Any]
      object[field] = value
      return canonical(object).dropFirst().dropLast().description
    }
    #expect(refusal(with(String(repeating: "a", count: limit)), isPro: true) == nil)
    #expect(
      refusal(with(String(repeating: "a", count: limit + 1)), isPro: true)
        == invalid(field, "at most \(limit) characters"))
    // Code points, as JSON Schema's maxLength (the OpenAPI document's) counts them, not bytes
    // or what a reader sees as one: "é" as e + a combining accent is 2, a family emoji 5. So
    // stacked combining marks count each, and cannot make a name of one character but pages
    // of marks.
    let accented = String(repeating: "e\u{301}", count: limit / 2)
    #expect(refusal(with(accented), isPro: true) == nil)
    #expect(
      refusal(with(accented + "e\u{301}"), isPro: true)
        == invalid(field, "at most \(limit) characters"))
    #expect(
      refusal(with("Z" + String(repeating: "\u{301}", count: limit)), isPro: true)
        == invalid(field, "at most \(limit) characters"))
    let family = String(repeating: "👩‍👩‍👧", count: limit / 5)
    #expect(refusal(with(family), isPro: true) == nil)
    #expect(
      refusal(with(family + "👩‍👩‍👧"), isPro: true) == invalid(field, "at most \(limit) characters"))
    // Surrounding whitespace does not count.
    #expect(refusal(with("  " + String(repeating: "a", count: limit) + "\n"), isPro: true) == nil)
  }

  @Test("the store's fields load as written, under rules made stricter since they were written")
  func storedFieldsLoadAsWritten() throws {
    // A name of 1 character and 150 combining marks (once within a limit of characters as
    // seen), and a look-alike host (refused since).
    let name = "Z" + String(repeating: "\u{301}", count: 150)
    let older = canonical([
      "firstName": name, "facebookUrl": "https://faceb\u{43E}\u{43E}k.com/zoe",
    ]).dropFirst().dropLast().description
    #expect(refusal(older, isPro: true) != nil)
    let loaded = try CardFields.stored(older)
    #expect(loaded.firstName == name)
    #expect(loaded.json().contains("faceb\u{43E}\u{43E}k.com"))
    // Still the fields' shape: not an object, or no firstName, is no card.
    #expect(throws: CardFieldError.self) { try CardFields.stored("[]") }
    #expect(throws: CardFieldError.self) { try CardFields.stored(#"{"lastName":"Li"}"#) }
  }

  @Test func addressLengthLimits() {
    for (part, limit) in [
      ("street", 200), ("city", 100), ("region", 100), ("postcode", 20), ("country", 100),
    ] {
      let ok = card(#""address":{"\#(part)":"\#(String(repeating: "x", count: limit))"}"#)
      let long = card(#""address":{"\#(part)":"\#(String(repeating: "x", count: limit + 1))"}"#)
      #expect(refusal(ok) == nil)
      #expect(refusal(long) == invalid("address.\(part)", "at most \(limit) characters"))
    }
  }

  @Test(
    arguments: singleLineLimits.map(\.0) + [
      "address.city", "address.country", "webLinks[0].displayText",
    ])
  func singleLineFieldsRefuseLineBreaks(_ field: String) {
    for breakCharacter in ["\n", "\r", "\r\n", "\u{2028}"] {
      #expect(
        refusal(json(field, "Ann" + breakCharacter + "Lee"), isPro: true)
          == invalid(field, "must be a single line"))
    }
    // Tabs are allowed everywhere.
    #expect(refusal(json(field, "Ann\tLee"), isPro: true) == nil)
  }

  @Test(arguments: multiLineLimits.map(\.0) + ["address.street"])
  func multiLineFieldsKeepLineBreaks(_ field: String) throws {
    let text = "Line one\nLine two\r\n\tLine three"
    let fields = try CardFields.parse(json(field, text), isPro: true)
    let kept =
      switch field {
      case "aboutMe": fields.aboutMe
      case "customMessage": fields.customMessage
      case "cvDescription": fields.cvDescription
      default: fields.address?.street
      }
    #expect(kept == text)
  }

  @Test(
    arguments: singleLineLimits.map(\.0) + multiLineLimits.map(\.0) + [
      "address.street", "webLinks[0].displayText",
    ])
  func textRefusesControlCharacters(_ field: String) {
    for control in ["\u{0}", "\u{7}", "\u{1B}", "\u{0B}", "\u{0C}", "\u{7F}", "\u{85}", "\u{9F}"] {
      #expect(
        refusal(json(field, "Ann" + control + "Lee"), isPro: true)
          == invalid(field, "must not contain control characters"),
        "U+\(String(control.unicodeScalars.first!.value, radix: 16))")
    }
  }

  @Test(arguments: ["cvUrl", "cvHeader", "cvDescription", "cvDisplayText"])
  func cvFieldsArePro(_ field: String) throws {
    let value = field == "cvUrl" ? "https://ann.example/cv.pdf" : "My CV"
    #expect(refusal(card(field, value), isPro: false) == invalid(field, "Pro only"))
    #expect(refusal(card(field, value), isPro: false)?.message == "INVALID \(field): Pro only")
    #expect(refusal(card(field, value), isPro: true) == nil)
    // Empty is absent, so not refused.
    #expect(refusal(card(field, " "), isPro: false) == nil)
    #expect(refusal(card("\(quoted(field)):null"), isPro: false) == nil)
  }

  /// A card with `value` at `field`, which may be `address.<part>` or `webLinks[0].displayText`.
  func json(_ field: String, _ value: String) -> String {
    if field.hasPrefix("address.") {
      return card("\"address\":{\(quoted(String(field.dropFirst(8)))):\(quoted(value))}")
    }
    if field == "webLinks[0].displayText" {
      return card("\"webLinks\":[{\"url\":\"https://a.example\",\"displayText\":\(quoted(value))}]")
    }
    if field == "firstName" { return "{\"firstName\":\(quoted(value))}" }
    return card(field, value)
  }
}
