import Cards
import Testing

/// The formats: email, phone numbers, URLs, social handles, locations, web links.
@Suite struct CardFieldsFormatTests {
  @Test(arguments: [
    "ann@example.com", "ann.lee+cards@mail.example.co.uk", "ANN@EXAMPLE.COM", "a@b.c",
    "ann_lee@xn--bcher-kva.example", "anné@bücher.de",
  ])
  func acceptsEmails(_ email: String) throws {
    #expect(try CardFields.parse(card("email", email), isPro: false).email == email)
  }

  @Test(arguments: [
    "ann", "ann@", "@example.com", "ann@example", "ann@.example.com", "ann@example.com.",
    "ann@example..com", "ann lee@example.com", "ann@@example.com", "ann@exa@mple.com",
    #"a"b@example.com"#, "ann<x>@example.com", "ann@example.com,bob@example.com",
    "ann;@example.com", "\(String(repeating: "a", count: 65))@example.com",
  ])
  func refusesEmails(_ email: String) {
    #expect(refusal(card("email", email)) == invalid("email", "not an email address"))
  }

  @Test func refusesEmailsOver254Bytes() {
    let long = "ann@" + String(repeating: "a", count: 247) + ".com"
    #expect(long.utf8.count == 255)
    #expect(refusal(card("email", long)) == invalid("email", "longer than 254 bytes"))
    #expect(refusal(card("email", String(long.dropFirst()))) == nil)
  }

  @Test(arguments: [
    // E.164, and as people write it.
    "+14155550100", "+442079460958", "+12345678", "+123456789012345", "+1 415 555 0100",
    "+1 (415) 555-0100", "+44 20 7946 0958", "+33.1.23.45.67.89", "+49-30-1234567",
    // National numbers.
    "5550100", "555-0100", "020 7946 0958", "(020) 7946-0958", "(415) 555-0100",
    "415.555.0100", "123456789012345", "06 12 34 56 78",
  ])
  func acceptsPhoneNumbers(_ phone: String) throws {
    let fields = try CardFields.parse(
      card(#""phoneNumber":\#(quoted(phone)),"secondaryPhone":\#(quoted(phone))"#), isPro: false)
    #expect(fields.phoneNumber == phone)
    #expect(fields.secondaryPhone == phone)
  }

  @Test(arguments: [
    "+1234567",  // 7 digits after +
    "+1234567890123456",  // 16
    "+0441234567890",  // no country code starts with 0
    "123456",  // 6 national digits
    "1234567890123456",  // 16
    "555-CALL-NOW", "tel:+14155550100", "+1 415 555 0100 ext 12", "+1 415 555 0100#",
    "++14155550100", "1+4155550100", "+ 14155550100", "555--0100", "555 - 0100", "555-0100-",
    "(415 555 0100", "415) 555 0100", "(415) (555) 0100", "() 5550100", "((415)) 5550100",
    "-5550100", ".5550100", "５５５０１００１",  // full-width digits
  ])
  func refusesPhoneNumbers(_ phone: String) {
    #expect(refusal(card("phoneNumber", phone)) == invalid("phoneNumber", "not a phone number"))
    #expect(
      refusal(card("secondaryPhone", phone)) == invalid("secondaryPhone", "not a phone number"))
  }

  static let urlFields = [
    "facebookUrl", "instagramUrl", "tiktokUrl", "youtubeUrl", "discordUrl", "twitchUrl",
    "snapchatUrl", "telegramUrl", "whatsappUrl", "threadsUrl", "cvUrl", "imageUrl", "logoUrl",
    "bannerUrl", "linkedIn", "twitter", "webLinks[0].url",
  ]

  static let goodURLs = [
    "https://example.com", "http://example.com", "HTTPS://Example.COM/Path",
    "https://www.linkedin.com/in/ann-lee/", "https://example.com/a/b?q=1&r=%20#frag",
    "https://example.com:8443/x", "http://127.0.0.1:8080/", "http://[2001:db8::1]/",
    "http://[::1]:8080", "https://localhost", "https://bücher.de/straße", "https://例え.jp",
    "https://wa.me/14155550100", "https://t.me/ann_lee", "https://example.com?x",
    "https://a_b.example.com",
    // One script per label: Cyrillic and Greek hosts are hosts too.
    "https://пример.рф/", "https://москва.рф", "https://παράδειγμα.δοκιμή", "https://яндекс.com",
  ]

  @Test(arguments: urlFields)
  func urlFieldsAcceptHTTPURLs(_ field: String) throws {
    for url in Self.goodURLs {
      #expect(refusal(json(field, url), isPro: true) == nil, "\(url)")
    }
    let fields = try CardFields.parse(json(field, "  https://example.com/x  "), isPro: true)
    #expect(fields.json().contains(#""https://example.com/x""#))
  }

  static let badURLs: [(String, String)] = [
    ("example.com", "must be an http or https URL"),
    ("www.example.com/ann", "must be an http or https URL"),
    ("ftp://example.com", "must be an http or https URL"),
    ("file:///etc/passwd", "must be an http or https URL"),
    ("javascript://%0Aalert(1)", "must be an http or https URL"),
    ("mailto://ann@example.com", "must be an http or https URL"),
    ("https//example.com", "must be an http or https URL"),
    ("://example.com", "must be an http or https URL"),
    ("https://", "must have a valid host"),
    ("https:///path", "must have a valid host"),
    ("https://?q=1", "must have a valid host"),
    ("https://.example.com", "must have a valid host"),
    ("https://example..com", "must have a valid host"),
    ("https://-example.com", "must have a valid host"),
    ("https://exa$mple.com", "must have a valid host"),
    ("https://[::1", "must have a valid host"),
    ("https://[example.com]", "must have a valid host"),
    ("https://[::1]x", "must have a valid host"),
    ("https://example.com:", "must have a valid port"),
    ("https://example.com:99999", "must have a valid port"),
    ("https://example.com:0", "must have a valid port"),
    ("https://example.com:https", "must have a valid port"),
    ("https://ann:secret@example.com", "must not contain a user name or password"),
    ("https://bank.example@evil.example", "must not contain a user name or password"),
    ("https://exa mple.com", "must not contain spaces or control characters"),
    ("https://example.com/a b", "must not contain spaces or control characters"),
    ("https://example.com/\u{7}", "must not contain spaces or control characters"),
    ("https://example.com/a\u{A0}b", "must not contain spaces or control characters"),
    ("https://example.com/a\u{3000}b", "must not contain spaces or control characters"),
    ("https://example.com/<script>", "not a valid URL"),
    (#"https://example.com/"onload"#, "not a valid URL"),
    (#"https://example.com\@evil.example"#, "not a valid URL"),
    ("https://example.com/{x}", "not a valid URL"),
    // U+202E turns what follows around: "moc.elgoog" reads as google.com.
    (
      "https://example.com/\u{202E}moc.elgoog",
      "must not contain invisible or direction-changing characters"
    ),
    ("https://exam\u{200B}ple.com", "must not contain invisible or direction-changing characters"),
    (
      "https://example.com/\u{2066}x", "must not contain invisible or direction-changing characters"
    ),
    // Cyrillic а (U+0430) among Latin letters, and a word spelt wholly in Latin-looking Cyrillic.
    ("https://\u{430}pple.com/", "must not have a look-alike host"),
    ("https://\u{430}\u{440}\u{440}\u{4CF}\u{435}.com/", "must not have a look-alike host"),
    ("https://p\u{3B1}ypal.com/", "must not have a look-alike host"),
  ]

  @Test(arguments: urlFields)
  func urlFieldsRefuseOtherText(_ field: String) {
    // Without a scheme, linkedIn and twitter take the text for a handle.
    let bare = ["linkedIn", "twitter"].contains(field)
    let notAHandle = "must be an http or https URL or a handle"
    for (url, reason) in Self.badURLs {
      let expected = bare && !url.contains("://") ? notAHandle : reason
      #expect(refusal(json(field, url), isPro: true) == invalid(field, expected), "\(url)")
    }
    #expect(
      refusal(json(field, "ann.lee"), isPro: true)
        == invalid(field, bare ? notAHandle : "must be an http or https URL"))
  }

  @Test(arguments: urlFields)
  func urlsAreAtMost2048Bytes(_ field: String) {
    let prefix = "https://example.com/"
    let fits = prefix + String(repeating: "é", count: (2_048 - prefix.utf8.count) / 2)
    #expect(fits.utf8.count == 2_048)
    #expect(refusal(json(field, fits), isPro: true) == nil)
    #expect(
      refusal(json(field, fits + "a"), isPro: true) == invalid(field, "longer than 2048 bytes"))
  }

  /// linkedIn and twitter also take a bare handle (their design names them without "Url", and
  /// people type handles); the other social fields take URLs only.
  @Test func linkedInAndTwitterTakeBareHandles() throws {
    func kept(_ field: String, _ value: String) throws -> String? {
      let fields = try CardFields.parse(card(field, value), isPro: false)
      return field == "twitter" ? fields.twitter : fields.linkedIn
    }
    #expect(try kept("twitter", "@ann_lee") == "ann_lee")
    #expect(try kept("twitter", "ann_lee") == "ann_lee")
    #expect(try kept("twitter", "Ann_Lee_2026_X1") == "Ann_Lee_2026_X1")
    #expect(try kept("twitter", "https://x.com/ann_lee") == "https://x.com/ann_lee")
    #expect(try kept("linkedIn", "ann-lee-4a1b2c") == "ann-lee-4a1b2c")
    #expect(try kept("linkedIn", "ann") == "ann")
    #expect(
      try kept("linkedIn", "https://www.linkedin.com/in/ann-lee")
        == "https://www.linkedin.com/in/ann-lee")
    let reason = "must be an http or https URL or a handle"
    for handle in [
      "@", "@@ann", "ann-lee", "ann.lee", "Ann_Lee_2026_X12", "@ann lee", "annélee", "x.com/ann",
    ] {
      #expect(refusal(card("twitter", handle)) == invalid("twitter", reason), "\(handle)")
    }
    for handle in [
      "an", "ann_lee", "@ann-lee", "in/ann-lee", "linkedin.com/in/ann",
      String(repeating: "a", count: 101),
    ] {
      #expect(refusal(card("linkedIn", handle)) == invalid("linkedIn", reason), "\(handle)")
    }
    #expect(refusal(card("linkedIn", String(repeating: "a", count: 100))) == nil)
    for field in ["facebookUrl", "instagramUrl", "tiktokUrl", "threadsUrl"] {
      #expect(refusal(card(field, "ann_lee")) == invalid(field, "must be an http or https URL"))
    }
  }

  /// A theme colour is `#rrggbb` only: nothing else a style sheet could take (a name, `rgb()`,
  /// a short form, or text that ends the declaration).
  @Test func themeColors() throws {
    func kept(_ value: String) throws -> String? {
      try CardFields.parse(card("themeColor", value), isPro: false).themeColor
    }
    #expect(try kept("#1a73e8") == "#1a73e8")
    #expect(try kept(" #1A73E8 ") == "#1a73e8")
    #expect(try kept("#000000") == "#000000")
    for value in [
      "1a73e8", "#1a73e", "#1a73e8a", "#1a73e8ff", "#abc", "#1g73e8", "red", "rgb(1,2,3)",
      "#1a73e8;}body{display:none", "#1a73e8</style>", "# 1a73e8", "#１a73e8", "#1a7\u{200B}3e8",
    ] {
      #expect(
        refusal(card("themeColor", value)) == invalid("themeColor", "must be a colour as #rrggbb"),
        "\(value)")
    }
    let fields = try CardFields.parse(card("themeColor", "#ABCDEF"), isPro: false)
    #expect(try CardFields.parse(fields.json(), isPro: false) == fields)
    #expect(try fields.merging(#"{"themeColor":null}"#, isPro: false).themeColor == nil)
  }

  @Test func locations() throws {
    func location(_ json: String) throws -> CardLocation? {
      try CardFields.parse(card(#""location":"# + json), isPro: false).location
    }
    #expect(
      try location(#"{"lon":2.3522,"lat":48.8566}"#)
        == CardLocation(longitude: 2.3522, latitude: 48.8566, source: .manual))
    #expect(
      try location(#"{"lon":2,"lat":48,"source":"gps"}"#)
        == CardLocation(longitude: 2, latitude: 48, source: .gps))
    #expect(
      try location(#"{"lon":-2.5e1,"lat":4.8E1,"source":"geocoded"}"#)
        == CardLocation(longitude: -25, latitude: 48, source: .geocoded))
    #expect(try location(#"{"lon":1,"lat":1,"source":null}"#)?.source == .manual)
    #expect(try location(#"{"lon":1,"lat":1,"source":""}"#)?.source == .manual)
    // Redis's GEO limits, inclusive.
    for (lon, lat) in [(180.0, 85.05112878), (-180.0, -85.05112878), (0.0, 0.0)] {
      #expect(
        try location(#"{"lon":\#(lon),"lat":\#(lat)}"#)
          == CardLocation(longitude: lon, latitude: lat))
    }
    #expect(
      refusal(card(#""location":{"lon":180.000001,"lat":0}"#))
        == invalid("location.lon", "must be between -180.0 and 180.0"))
    #expect(
      refusal(card(#""location":{"lon":-181,"lat":0}"#))
        == invalid("location.lon", "must be between -180.0 and 180.0"))
    #expect(
      refusal(card(#""location":{"lon":0,"lat":85.0511288}"#))
        == invalid("location.lat", "must be between -85.05112878 and 85.05112878"))
    #expect(
      refusal(card(#""location":{"lon":0,"lat":-90}"#))
        == invalid("location.lat", "must be between -85.05112878 and 85.05112878"))
    #expect(
      refusal(card(#""location":{"lon":0,"lat":1e308}"#))
        == invalid("location.lat", "must be between -85.05112878 and 85.05112878"))
    // JSON has no infinity: a number too large for a Double is not valid JSON.
    #expect(
      refusal(card(#""location":{"lon":1e999,"lat":0}"#)) == invalid("json", "not valid JSON"))
    #expect(refusal(card(#""location":{"lat":48}"#)) == invalid("location.lon", "required"))
    #expect(
      refusal(card(#""location":{"lon":null,"lat":48}"#)) == invalid("location.lon", "required"))
    #expect(refusal(card(#""location":{"lon":2}"#)) == invalid("location.lat", "required"))
    #expect(refusal(card(#""location":{}"#)) == invalid("location.lon", "required"))
    #expect(
      refusal(card(#""location":{"lon":2,"lat":48,"source":"GPS"}"#))
        == invalid("location.source", "must be gps, geocoded or manual"))
    #expect(
      refusal(card(#""location":{"lon":2,"lat":48,"source":"satellite"}"#))
        == invalid("location.source", "must be gps, geocoded or manual"))
  }

  @Test func locationsKeepNineDecimals() {
    #expect(
      CardLocation(longitude: 2.352219912345678, latitude: -48.85661412345678).longitude
        == 2.352219912)
    #expect(
      CardLocation(longitude: 2.352219912345678, latitude: -48.85661412345678).latitude
        == -48.856614123)
    var location = CardLocation(longitude: 2.3522219, latitude: 48.856614)
    #expect(location.longitude == 2.3522219)
    #expect(location.latitude == 48.856614)
    location.longitude = 139.69170000000001
    location.latitude = 35.689499999999995
    #expect(location.longitude == 139.6917)
    #expect(location.latitude == 35.6895)
  }

  @Test func webLinks() throws {
    let links = (0..<20).map {
      #"{"url":"https://ann.example/\#($0)","displayText":"Link \#($0)"}"#
    }
    let fields = try CardFields.parse(
      card(#""webLinks":[\#(links.joined(separator: ","))]"#), isPro: false)
    #expect(fields.webLinks.count == 20)
    #expect(fields.webLinks[7] == CardWebLink(url: "https://ann.example/7", displayText: "Link 7"))
    #expect(
      refusal(card(#""webLinks":[\#((links + [links[0]]).joined(separator: ","))]"#))
        == invalid("webLinks", "at most 20 links"))
    #expect(try CardFields.parse(card(#""webLinks":[]"#), isPro: false).webLinks == [])
    // Blank rows are dropped; a text without a URL is refused.
    let blanks = try CardFields.parse(
      card(
        #""webLinks":[{},{"url":"https://a.example"},{"url":" ","displayText":""},{"url":null}]"#),
      isPro: false)
    #expect(blanks.webLinks == [CardWebLink(url: "https://a.example")])
    #expect(
      refusal(card(#""webLinks":[{"displayText":"My blog"}]"#))
        == invalid("webLinks[0].url", "required"))
    #expect(
      refusal(card(#""webLinks":[{"url":"https://a.example"},{"url":"blog"}]"#))
        == invalid("webLinks[1].url", "must be an http or https URL"))
    #expect(
      refusal(
        card(
          #""webLinks":[{"url":"https://a.example","displayText":"\#(String(repeating: "x", count: 101))"}]"#
        ))
        == invalid("webLinks[0].displayText", "at most 100 characters"))
    #expect(
      refusal(
        card(
          #""webLinks":[{"url":"https://a.example","displayText":"\#(String(repeating: "x", count: 100))"}]"#
        )) == nil)
  }

  func json(_ field: String, _ value: String) -> String {
    field == "webLinks[0].url"
      ? card("\"webLinks\":[{\"url\":\(quoted(value))}]") : card(field, value)
  }
}
