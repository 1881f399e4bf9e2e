import Foundation
import RedisTestSupport

/// The cards the browser opens, made over RESP as a client would: a full card (every field,
/// non-ASCII text, an uploaded picture and logo), an inactive card, a reserved primary URL, and
/// one card per hostile value of the XSS matrix, in every text field.
struct Seeded: Sendable {
  let full: String
  let picture: String
  let logo: String
  let banner: String
  let inactive: String
  let placeholder: String
  /// The page's path of each `hostileText` value's card, in order.
  let hostile: [String]
  /// CARD.CREATE's reply to each (field, value) of `hostileURLs`.
  let urlReplies: [(field: String, value: String, reply: String)]

  static var fullCard: [String: Any] {
    [
      "prefix": "Dr.", "firstName": "Zoë", "middleName": "Ana", "lastName": "Łukasiewicz-Núñez",
      "credentials": "PhD", "pronouns": "elle/she", "jobTitle": "Ingénieure cartographe",
      "company": "Atlas & Fils, S.A.", "description": "Cartes du monde · Χάρτες · خرائط",
      "phoneNumber": "+33 6 12 34 56 78", "secondaryPhone": "(555) 123-4567",
      "email": "zoe@example.org", "aboutMe": "Je dessine des cartes.\nI draw maps.",
      "customMessageHeader": "Merci !", "customMessage": "Thanks for scanning — à bientôt.",
      "address": [
        "street": "12 Große Straße", "city": "München", "postcode": "80331", "region": "Bayern",
        "country": "Deutschland",
      ],
      "location": ["lon": 11.575, "lat": 48.137],
      "linkedIn": "zoe-lukasiewicz", "twitter": "@zoe_maps",
      "facebookUrl": "https://facebook.com/zoe", "instagramUrl": "https://instagram.com/zoe",
      "tiktokUrl": "https://tiktok.com/@zoe", "youtubeUrl": "https://youtube.com/@zoe",
      "discordUrl": "https://discord.gg/zoe", "twitchUrl": "https://twitch.tv/zoe",
      "snapchatUrl": "https://snapchat.com/add/zoe", "telegramUrl": "https://t.me/zoe",
      "whatsappUrl": "https://wa.me/33612345678", "threadsUrl": "https://threads.net/@zoe",
      "webLinks": [
        ["url": "https://zoe.example/portfolio?a=1&b=2", "displayText": "Portfolio"],
        ["url": "https://bücher.example/straße"],
      ],
      "cvUrl": "https://zoe.example/cv.pdf", "cvHeader": "Résumé", "cvDisplayText": "Get my CV",
      "cvDescription": "Ten years of maps.", "themeColor": "#1a73e8",
    ]
  }

  static let fullName = "Dr. Zoë Ana Łukasiewicz-Núñez, PhD"

  /// What an attacker writes where text goes: markup, attribute and style-sheet breakouts, a
  /// template's own syntax, and long right-to-left and emoji text without a space to break at.
  static let hostileText = [
    "<script>alert(1)</script>",
    #""><img src=x onerror=alert(1)>"#,
    "'><svg onload=alert(1)>",
    "</style><script>alert(1)</script>",
    "</title><script>alert(1)</script><title>",
    "}body{display:none}</style><style>*{color:red}",
    #"<a href="javascript:alert(1)">x</a><iframe src=javascript:alert(1)>"#,
    "{{name}} {{{title}}} ${alert(1)} <!--",
    String(repeating: "مرحبا", count: 12) + "\u{202E}",
    String(repeating: "👩🏽‍💻", count: 60),
  ]

  /// `javascript:` and other script-running URLs, in every field that takes a URL.
  static let hostileURLs = [
    "javascript:alert(1)", "JaVaScRiPt:alert(document.domain)", " javascript:alert(1)",
    "javascript://example.com/%0aalert(1)", "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
    #"https://x.example/"><script>alert(1)</script>"#,
  ]
  static let urlFields = [
    "linkedIn", "twitter", "facebookUrl", "instagramUrl", "tiktokUrl", "youtubeUrl",
    "discordUrl", "twitchUrl", "snapchatUrl", "telegramUrl", "whatsappUrl", "threadsUrl",
    "cvUrl", "imageUrl", "logoUrl", "bannerUrl", "webLinks",
  ]

  /// Every text field set to `value`, cut to the field's bound (in code points).
  static func hostileCard(_ value: String) -> [String: Any] {
    func cut(_ n: Int) -> String { Self.cut(value, n) }
    var card: [String: Any] = [:]
    for field in ["firstName", "middleName", "lastName", "prefix", "credentials", "pronouns"] {
      card[field] = cut(100)
    }
    for field in ["customMessageHeader", "cvHeader", "cvDisplayText"] { card[field] = cut(100) }
    card["description"] = cut(300)
    card["jobTitle"] = cut(150)
    card["company"] = cut(150)
    card["customMessage"] = cut(500)
    for field in ["aboutMe", "cvDescription"] { card[field] = cut(2_000) }
    card["address"] = [
      "street": cut(200), "city": cut(100), "region": cut(100), "postcode": cut(20),
      "country": cut(100),
    ]
    card["webLinks"] = [["url": "https://links.example/a", "displayText": cut(100)]]
    card["cvUrl"] = "https://links.example/cv.pdf"
    card["instagramUrl"] = "https://instagram.com/x"
    // Valid, but elsewhere: the page must not load them (the CSP allows its own images only).
    card["logoUrl"] = "https://images.example/logo.png"
    card["bannerUrl"] = "https://images.example/banner.png"
    return card
  }

  /// The first `n` code points, as a field's bound counts them.
  static func cut(_ value: String, _ n: Int) -> String {
    String(String.UnicodeScalarView(value.unicodeScalars.prefix(n)))
  }

  /// The display name of a hostile card: prefix, first, middle and last names, credentials.
  static func hostileName(_ value: String) -> String {
    let v = cut(value, 100)
    return "\(v) \(v) \(v) \(v), \(v)"
  }

  init(admin: RESPConnection, port: UInt16, origin: String) throws {
    func account(_ email: String, pro: Bool = false) throws -> (RESPConnection, String, Int) {
      let c = try RESPConnection(port: port)
      let made = try c.object("ACCOUNT.CREATE", email, "secret1")
      guard try c.text("AUTH", email, "secret1") == "OK",
        let id = made["id"] as? Int, let username = made["username"] as? String
      else { throw RESPConnection.Failed(description: "cannot sign in \(email): \(made)") }
      if pro { _ = try admin.text("ACCOUNT.PRO", "\(id)", "1") }
      return (c, username, id)
    }
    func create(_ c: RESPConnection, _ card: [String: Any]) throws -> [String: Any] {
      let json = String(decoding: try JSONSerialization.data(withJSONObject: card), as: UTF8.self)
      return try c.object("CARD.CREATE", json)
    }
    func upload(_ c: RESPConnection, _ kind: String, _ file: String) throws -> String {
      let reply = try c.command(
        bytes: [Array("ASSET.PUT".utf8), Array(kind.utf8), try MediaFixtures.bytes(file)])
      guard case .bulkString(let b) = reply.value,
        let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any],
        let url = object["url"] as? String
      else { throw RESPConnection.Failed(description: "ASSET.PUT: \(reply.text)") }
      return url
    }

    let (zoe, zoeName, _) = try account("zoe@x.org", pro: true)
    let pictureURL = try upload(zoe, "IMAGE", "python.jpg")
    let logoURL = try upload(zoe, "LOGO", "python.png")
    let bannerURL = try upload(zoe, "IMAGE", "python.webp")
    var card = Self.fullCard
    card["imageUrl"] = pictureURL
    card["logoUrl"] = logoURL
    card["bannerUrl"] = bannerURL
    _ = try create(zoe, card)
    full = zoeName
    picture = String(pictureURL.dropFirst(origin.count))
    logo = String(logoURL.dropFirst(origin.count))
    banner = String(bannerURL.dropFirst(origin.count))

    // A second card of a Pro account goes inactive when Pro ends.
    let (bo, boName, boID) = try account("bo@x.org", pro: true)
    _ = try create(bo, ["firstName": "Bo"])
    let second = try create(bo, ["firstName": "Hidden", "lastName": "Secondcard"])
    inactive = "\(boName)/\(try require(second["slug"] as? String, "slug"))"
    _ = try admin.text("ACCOUNT.PRO", "\(boID)", "0")

    // A deleted primary card leaves its URL reserved.
    let (cy, cyName, _) = try account("cy@x.org")
    let old = try create(cy, ["firstName": "Deleted"])
    _ = try cy.text("CARD.DEL", "\(try require(old["id"] as? Int, "id"))")
    placeholder = cyName

    // One Pro account's ten cards (fewer accounts: each costs two scrypt hashes).
    let (x, _, _) = try account("x@x.org", pro: true)
    hostile = try Self.hostileText.map { value in
      let url = try require(try create(x, Self.hostileCard(value))["url"] as? String, "url")
      return String(url.dropFirst(origin.count))
    }

    // Each refused, else deleted at once so that the next is not refused for the card count.
    let (urls, _, _) = try account("urls@x.org", pro: true)
    var replies: [(String, String, String)] = []
    for field in Self.urlFields {
      for value in Self.hostileURLs {
        let card: [String: Any] =
          field == "webLinks"
          ? ["firstName": "U", "webLinks": [["url": value]]] : ["firstName": "U", field: value]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: card), as: UTF8.self)
        let reply = try urls.text("CARD.CREATE", json)
        if let made = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
          let id = made["id"] as? Int
        {
          _ = try urls.text("CARD.DEL", "\(id)")
        }
        replies.append((field, value, reply))
      }
    }
    urlReplies = replies
  }
}
