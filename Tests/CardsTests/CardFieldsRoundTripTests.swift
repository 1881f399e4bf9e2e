import Cards
import Datasets
import Foundation
import Testing

/// json() and jsonObject(), and parse(json()) giving the same fields back.
@Suite struct CardFieldsRoundTripTests {
  static let everyField = #"""
    {
      "firstName": "Ann", "middleName": "Marie", "lastName": "Lee", "prefix": "Dr.",
      "credentials": "Ph.D.", "pronouns": "she/her", "description": "Maps & people",
      "jobTitle": "Chief Cartographer", "company": "Atlas \"&\" Co.",
      "phoneNumber": "+1 (415) 555-0100", "secondaryPhone": "020 7946 0958",
      "email": "ann@example.com", "aboutMe": "Line one\nLine two\n\tindented",
      "customMessage": "Say hi!\nAny time.", "customMessageHeader": "Hello",
      "address": {"street": "1 Rue de Rivoli\nBâtiment B", "city": "Paris", "region": "Île-de-France",
                  "postcode": "75001", "country": "France"},
      "location": {"lon": 2.3522219, "lat": 48.856614, "source": "geocoded"},
      "showOnMap": true,
      "linkedIn": "ann-lee", "twitter": "@ann_lee", "facebookUrl": "https://facebook.com/ann.lee",
      "instagramUrl": "https://instagram.com/ann.lee", "tiktokUrl": "https://www.tiktok.com/@ann.lee",
      "youtubeUrl": "https://youtube.com/@annlee", "discordUrl": "https://discord.gg/abc123",
      "twitchUrl": "https://twitch.tv/annlee", "snapchatUrl": "https://snapchat.com/add/annlee",
      "telegramUrl": "https://t.me/ann_lee", "whatsappUrl": "https://wa.me/14155550100",
      "threadsUrl": "https://www.threads.net/@ann.lee",
      "webLinks": [{"url": "https://ann.example", "displayText": "Home"}, {"url": "https://blog.ann.example/?q=a&b=c#top"}],
      "cvUrl": "https://ann.example/cv.pdf", "cvHeader": "Curriculum", "cvDescription": "Ten years\nof maps",
      "cvDisplayText": "Download my CV", "imageUrl": "https://cdn.example/ann.jpg",
      "logoUrl": "https://cdn.example/atlas.svg", "themeColor": "#1A73E8",
      "bannerUrl": "https://cdn.example/banner.jpg"
    }
    """#

  @Test func aCardWithEveryField() throws {
    let fields = try CardFields.parse(Self.everyField, isPro: true)
    #expect(
      fields
        == CardFields(
          firstName: "Ann", middleName: "Marie", lastName: "Lee", prefix: "Dr.",
          credentials: "Ph.D.", pronouns: "she/her", description: "Maps & people",
          jobTitle: "Chief Cartographer", company: "Atlas \"&\" Co.",
          phoneNumber: "+1 (415) 555-0100", secondaryPhone: "020 7946 0958",
          email: "ann@example.com", aboutMe: "Line one\nLine two\n\tindented",
          customMessage: "Say hi!\nAny time.", customMessageHeader: "Hello",
          address: CardAddress(
            street: "1 Rue de Rivoli\nBâtiment B", city: "Paris", region: "Île-de-France",
            postcode: "75001", country: "France"),
          location: CardLocation(longitude: 2.3522219, latitude: 48.856614, source: .geocoded),
          showOnMap: true, linkedIn: "ann-lee", twitter: "ann_lee",
          facebookUrl: "https://facebook.com/ann.lee",
          instagramUrl: "https://instagram.com/ann.lee",
          tiktokUrl: "https://www.tiktok.com/@ann.lee", youtubeUrl: "https://youtube.com/@annlee",
          discordUrl: "https://discord.gg/abc123", twitchUrl: "https://twitch.tv/annlee",
          snapchatUrl: "https://snapchat.com/add/annlee", telegramUrl: "https://t.me/ann_lee",
          whatsappUrl: "https://wa.me/14155550100", threadsUrl: "https://www.threads.net/@ann.lee",
          webLinks: [
            CardWebLink(url: "https://ann.example", displayText: "Home"),
            CardWebLink(url: "https://blog.ann.example/?q=a&b=c#top"),
          ],
          cvUrl: "https://ann.example/cv.pdf", cvHeader: "Curriculum",
          cvDescription: "Ten years\nof maps", cvDisplayText: "Download my CV",
          imageUrl: "https://cdn.example/ann.jpg", logoUrl: "https://cdn.example/atlas.svg",
          themeColor: "#1a73e8", bannerUrl: "https://cdn.example/banner.jpg"))
    #expect(try CardFields.parse(fields.json(), isPro: true) == fields)
    #expect(try CardFields.parse(fields.json(), isPro: true).json() == fields.json())
    // Every field is in the JSON, under its own name.
    let object = try JSONSerialization.jsonObject(with: Data(fields.json().utf8)) as! [String: Any]
    let input = try JSONSerialization.jsonObject(with: Data(Self.everyField.utf8)) as! [String: Any]
    #expect(Set(object.keys) == Set(input.keys))
    #expect(object.count == 39)
  }

  @Test func jsonIsSortedWithNilsLeftOut() {
    #expect(
      CardFields(firstName: "Ann").json() == #"{"firstName":"Ann","showOnMap":false,"webLinks":[]}"#
    )
    let fields = CardFields(
      firstName: "Ann", lastName: "Lee", address: CardAddress(city: "Paris"),
      location: CardLocation(longitude: 2.3522, latitude: 48.8566), showOnMap: true,
      webLinks: [
        CardWebLink(url: "https://ann.example/blog", displayText: "Blog"),
        CardWebLink(url: "https://ann.example"),
      ])
    #expect(
      fields.json()
        == #"{"address":{"city":"Paris"},"firstName":"Ann","lastName":"Lee","#
        + #""location":{"lat":48.8566,"lon":2.3522,"source":"manual"},"showOnMap":true,"#
        + #""webLinks":[{"displayText":"Blog","url":"https://ann.example/blog"},{"url":"https://ann.example"}]}"#
    )
  }

  @Test func jsonObjectForEmbedding() throws {
    let fields = try CardFields.parse(Self.everyField, isPro: true)
    let object = fields.jsonObject()
    #expect(object["showOnMap"] as? Bool == true)
    #expect(object["firstName"] as? String == "Ann")
    #expect(object["twitter"] as? String == "ann_lee")
    #expect((object["webLinks"] as? [[String: Any]])?.count == 2)
    #expect((object["location"] as? [String: Any])?["lon"] as? Double == 2.3522219)
    #expect((object["address"] as? [String: Any])?["city"] as? String == "Paris")
    // Embedded in a reply with the server's fields.
    var reply = object
    reply["id"] = 42
    reply["code"] = "K7Q2ZD"
    let text = canonical(reply)
    #expect(text.hasPrefix(#"[{"aboutMe":"Line one\nLine two\n\tindented","address":{"#))
    #expect(text.contains(#""id":42"#))
    let empty = CardFields(firstName: "Bo").jsonObject()
    #expect(Set(empty.keys) == ["firstName", "showOnMap", "webLinks"])
    #expect(empty["showOnMap"] as? Bool == false)
    #expect((empty["webLinks"] as? [Any])?.isEmpty == true)
  }

  @Test func valuesTheRulesWouldNotMakeAreLeftOut() {
    // Not reachable through parse: a location JSON cannot hold, an address with no parts.
    let odd = CardFields(
      firstName: "Ann", address: CardAddress(), location: CardLocation(longitude: .nan, latitude: 0)
    )
    #expect(odd.json() == #"{"firstName":"Ann","showOnMap":false,"webLinks":[]}"#)
  }

  /// Random valid fields survive json() -> parse.
  @Test func randomFieldsSurviveJSON() throws {
    var generator = SeededGenerator(seed: 20_261_125)
    for _ in 0..<500 {
      let fields = RandomCard.fields(using: &generator)
      let json = fields.json()
      let parsed = try CardFields.parse(json, isPro: true)
      #expect(parsed == fields, "\(json)")
      #expect(parsed.json() == json)
      #expect(canonical(fields.jsonObject()) == "[\(json)]")
    }
  }

  /// Coordinates at full precision, made in code (CARD.LOCATE), survive too.
  @Test func randomLocationsSurviveJSON() throws {
    var generator = SeededGenerator(seed: 85_051_128)
    for _ in 0..<5_000 {
      let location = CardLocation(
        longitude: .random(in: -180...180, using: &generator),
        latitude: .random(in: -85.05112878...85.05112878, using: &generator),
        source: CardLocation.Source.allCases.randomElement(using: &generator)!)
      let fields = CardFields(firstName: "Ann", location: location)
      #expect(try CardFields.parse(fields.json(), isPro: true).location == location)
    }
  }
}

/// Random fields the rules accept, as `parse` keeps them (trimmed, none empty).
enum RandomCard {
  static func fields(using g: inout SeededGenerator) -> CardFields {
    func maybe<T>(_ make: (inout SeededGenerator) -> T) -> T? {
      Bool.random(using: &g) ? make(&g) : nil
    }
    var f = CardFields(firstName: text(100, using: &g))
    f.middleName = maybe { text(100, using: &$0) }
    f.lastName = maybe { text(100, using: &$0) }
    f.prefix = maybe { text(100, using: &$0) }
    f.credentials = maybe { text(100, using: &$0) }
    f.pronouns = maybe { text(100, using: &$0) }
    f.description = maybe { text(300, using: &$0) }
    f.jobTitle = maybe { text(150, using: &$0) }
    f.company = maybe { text(150, using: &$0) }
    f.phoneNumber = maybe { phone(using: &$0) }
    f.secondaryPhone = maybe { phone(using: &$0) }
    f.email = maybe { email(using: &$0) }
    f.aboutMe = maybe { text(2_000, lines: true, using: &$0) }
    f.customMessage = maybe { text(500, lines: true, using: &$0) }
    f.customMessageHeader = maybe { text(100, using: &$0) }
    if Bool.random(using: &g) {
      let address = CardAddress(
        street: maybe { text(200, lines: true, using: &$0) }, city: maybe { text(100, using: &$0) },
        region: maybe { text(100, using: &$0) }, postcode: maybe { text(20, using: &$0) },
        country: maybe { text(100, using: &$0) })
      f.address = address.isEmpty ? nil : address
    }
    f.location = maybe {
      CardLocation(
        longitude: .random(in: -180...180, using: &$0),
        latitude: .random(in: -85.05112878...85.05112878, using: &$0),
        source: CardLocation.Source.allCases.randomElement(using: &$0)!)
    }
    f.showOnMap = Bool.random(using: &g)
    f.linkedIn = maybe {
      Bool.random(using: &$0) ? url(using: &$0) : handle("abcxyz0123456789-", 3...30, using: &$0)
    }
    f.twitter = maybe {
      Bool.random(using: &$0) ? url(using: &$0) : handle("abcXYZ0189_", 1...15, using: &$0)
    }
    for path in [
      \CardFields.facebookUrl, \.instagramUrl, \.tiktokUrl, \.youtubeUrl, \.discordUrl, \.twitchUrl,
      \.snapchatUrl, \.telegramUrl, \.whatsappUrl, \.threadsUrl, \.cvUrl, \.imageUrl, \.logoUrl,
      \.bannerUrl,
    ] {
      f[keyPath: path] = maybe { url(using: &$0) }
    }
    f.themeColor = maybe { "#" + String(format: "%06x", Int.random(in: 0...0xFF_FFFF, using: &$0)) }
    f.webLinks =
      (0..<Int.random(in: 0...(Int.random(in: 0...9, using: &g) == 0 ? 20 : 4), using: &g)).map {
        _ in
        CardWebLink(url: url(using: &g), displayText: maybe { text(100, using: &$0) })
      }
    f.cvHeader = maybe { text(100, using: &$0) }
    f.cvDescription = maybe { text(2_000, lines: true, using: &$0) }
    f.cvDisplayText = maybe { text(100, using: &$0) }
    return f
  }

  static let characters: [String] =
    Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").map(String.init)
    + [
      " ", " ", "\t", "\"", "\\", "/", "'", "&", "<", ">", "é", "ß", "Ł", "中", "ا", "😀", "👩‍💻",
      "\u{A0}", "{", "}", "%",
    ]

  /// Trimmed, non-empty text of at most `maximum` characters (code points; and 40).
  static func text(_ maximum: Int, lines: Bool = false, using g: inout SeededGenerator) -> String {
    let pool = lines ? characters + ["\n", "\n", "\r\n"] : characters
    let count = Int.random(in: 1...min(maximum, 40), using: &g)
    var raw = (0..<count).map { _ in pool.randomElement(using: &g)! }.joined()
    while raw.unicodeScalars.count > maximum { raw.removeLast() }
    let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? "x" : trimmed
  }

  static func handle(_ alphabet: String, _ length: ClosedRange<Int>, using g: inout SeededGenerator)
    -> String
  {
    let pool = Array(alphabet)
    return String(
      (0..<Int.random(in: length, using: &g)).map { _ in pool.randomElement(using: &g)! })
  }

  static func url(using g: inout SeededGenerator) -> String {
    let scheme = ["https", "http", "HTTPS"].randomElement(using: &g)!
    let labels = (0..<Int.random(in: 1...3, using: &g)).map { _ in
      Bool.random(using: &g)
        ? handle("abcdefghijklmnopqrstuvwxyz0123456789", 1...12, using: &g)
        : ["bücher", "例え", "x-y"].randomElement(using: &g)!
    }
    let port =
      Int.random(in: 0...5, using: &g) == 0 ? ":\(Int.random(in: 1...65_535, using: &g))" : ""
    let path =
      Bool.random(using: &g)
      ? "/" + handle("abcXYZ019-._~%/?=&#@!$'()*+,;:é", 0...40, using: &g) : ""
    return "\(scheme)://\(labels.joined(separator: "."))\(port)\(path)"
  }

  static func email(using g: inout SeededGenerator) -> String {
    handle("abcxyz019._+-", 1...20, using: &g) + "@" + handle("abcxyz019-", 1...10, using: &g) + "."
      + handle("abcxyz", 2...6, using: &g)
  }

  static func phone(using g: inout SeededGenerator) -> String {
    let international = Bool.random(using: &g)
    let total = Int.random(in: international ? 8...15 : 7...15, using: &g)
    var digits = String((0..<total).map { _ in "0123456789".randomElement(using: &g)! })
    if international { digits = String("123456789".randomElement(using: &g)!) + digits.dropFirst() }
    // In groups of 1 to 4 digits, with one separator between.
    var groups: [Substring] = []
    var rest = Substring(digits)
    while !rest.isEmpty {
      let size = min(rest.count, Int.random(in: 1...4, using: &g))
      groups.append(rest.prefix(size))
      rest = rest.dropFirst(size)
    }
    let separator = ["", " ", "-", "."].randomElement(using: &g)!
    return (international ? "+" : "") + groups.joined(separator: separator)
  }
}
