import Foundation

/// What each owner-set field may hold. Lengths of text are in characters (Unicode code points,
/// as JSON Schema's `maxLength` and PostgreSQL's `char_length` count them: stacked combining
/// marks count each), of URLs and emails in UTF-8 bytes.
///
/// | fields | rule |
/// |---|---|
/// | firstName (required), middleName, lastName, prefix, credentials, pronouns, customMessageHeader, cvHeader, cvDisplayText, webLinks' displayText | one line, ≤ 100 |
/// | description (a tagline) | one line, ≤ 300 |
/// | jobTitle, company | one line, ≤ 150 |
/// | aboutMe, cvDescription | several lines, ≤ 2000 |
/// | customMessage | several lines, ≤ 500 |
/// | address: street (several lines, ≤ 200); city, region, country (≤ 100); postcode (≤ 20) | |
/// | email | an address as the accounts accept it, ≤ 254 bytes |
/// | phoneNumber, secondaryPhone | `isPhoneNumber` |
/// | every `…Url` field, webLinks' url | `urlProblem`: absolute http(s) with a host, ≤ 2048 bytes |
/// | linkedIn, twitter | such a URL, or a bare handle (`keptHandle`) |
/// | themeColor | `#` and six hex digits (`#1a73e8`), kept in lowercase |
/// | location | lon in [-180, 180], lat in [-85.05112878, 85.05112878] (Redis's GEO limits) |
/// | webLinks | at most 20 |
/// | the whole JSON input, and the card's JSON | ≤ 32 KiB |
///
/// Every string is trimmed of surrounding whitespace, and one left empty is absent. Text refuses
/// control characters other than tab, and line breaks outside the fields of several lines.
enum FieldRules {
  static let maximumInputBytes = 32 * 1024
  static let maximumURLBytes = 2_048
  static let maximumEmailBytes = 254
  static let maximumWebLinks = 20
  static let maximumLongitude = 180.0
  /// Redis's GEO limit: the latitude at which Web Mercator's square ends.
  static let maximumLatitude = 85.05112878

  /// What a string field may hold.
  enum Kind: Sendable {
    case text(maximum: Int, lines: Lines)
    case email
    case phone
    case url
    /// A URL, or a bare handle of the service.
    case urlOrHandle(Handle)
    /// An sRGB colour as `#rrggbb`: nothing a style sheet could read more into.
    case color
  }

  enum Lines: Sendable {
    case one
    case several
  }

  /// Services whose field may hold a bare handle instead of a profile URL. Their product
  /// design calls these fields "LinkedIn" and "Twitter" (not "…Url" like the others), and
  /// people type handles into them; a client builds the profile URL from a handle.
  enum Handle: Sendable {
    /// LinkedIn's custom profile URL part: 3 to 100 letters, digits or hyphens (`jane-doe`).
    case linkedIn
    /// X/Twitter's username: 1 to 15 letters, digits or underscores, with or without its `@`,
    /// which is dropped (`@jane_doe` is kept as `jane_doe`).
    case twitter
  }

  /// An optional string field of `CardFields`.
  struct StringField: Sendable {
    let name: String
    /// Where `CardFields` holds it (read and written through `CardFields[field]`: a key path
    /// per field was a tenth of a bulk import's reading and writing of fields).
    let key: SparseTexts.Key
    let kind: Kind
    /// Only a Pro account may set it.
    var proOnly = false
  }

  static let firstName = Kind.text(maximum: 100, lines: .one)

  /// Every optional string field, in the order they are checked.
  static let stringFields: [StringField] = [
    .init(name: "middleName", key: .middleName, kind: .text(maximum: 100, lines: .one)),
    .init(name: "lastName", key: .lastName, kind: .text(maximum: 100, lines: .one)),
    .init(name: "prefix", key: .prefix, kind: .text(maximum: 100, lines: .one)),
    .init(name: "credentials", key: .credentials, kind: .text(maximum: 100, lines: .one)),
    .init(name: "pronouns", key: .pronouns, kind: .text(maximum: 100, lines: .one)),
    .init(name: "description", key: .description, kind: .text(maximum: 300, lines: .one)),
    .init(name: "jobTitle", key: .jobTitle, kind: .text(maximum: 150, lines: .one)),
    .init(name: "company", key: .company, kind: .text(maximum: 150, lines: .one)),
    .init(name: "phoneNumber", key: .phoneNumber, kind: .phone),
    .init(name: "secondaryPhone", key: .secondaryPhone, kind: .phone),
    .init(name: "email", key: .email, kind: .email),
    .init(name: "aboutMe", key: .aboutMe, kind: .text(maximum: 2_000, lines: .several)),
    .init(name: "customMessage", key: .customMessage, kind: .text(maximum: 500, lines: .several)),
    .init(
      name: "customMessageHeader", key: .customMessageHeader,
      kind: .text(maximum: 100, lines: .one)),
    .init(name: "linkedIn", key: .linkedIn, kind: .urlOrHandle(.linkedIn)),
    .init(name: "twitter", key: .twitter, kind: .urlOrHandle(.twitter)),
    .init(name: "facebookUrl", key: .facebookUrl, kind: .url),
    .init(name: "instagramUrl", key: .instagramUrl, kind: .url),
    .init(name: "tiktokUrl", key: .tiktokUrl, kind: .url),
    .init(name: "youtubeUrl", key: .youtubeUrl, kind: .url),
    .init(name: "discordUrl", key: .discordUrl, kind: .url),
    .init(name: "twitchUrl", key: .twitchUrl, kind: .url),
    .init(name: "snapchatUrl", key: .snapchatUrl, kind: .url),
    .init(name: "telegramUrl", key: .telegramUrl, kind: .url),
    .init(name: "whatsappUrl", key: .whatsappUrl, kind: .url),
    .init(name: "threadsUrl", key: .threadsUrl, kind: .url),
    .init(name: "cvUrl", key: .cvUrl, kind: .url, proOnly: true),
    .init(
      name: "cvHeader", key: .cvHeader, kind: .text(maximum: 100, lines: .one), proOnly: true),
    .init(
      name: "cvDescription", key: .cvDescription, kind: .text(maximum: 2_000, lines: .several),
      proOnly: true),
    .init(
      name: "cvDisplayText", key: .cvDisplayText, kind: .text(maximum: 100, lines: .one),
      proOnly: true),
    .init(name: "imageUrl", key: .imageUrl, kind: .url),
    .init(name: "logoUrl", key: .logoUrl, kind: .url),
    .init(name: "themeColor", key: .themeColor, kind: .color),
    .init(name: "bannerUrl", key: .bannerUrl, kind: .url),
  ]

  /// The address's parts, in the order they are checked.
  static let addressFields:
    [(name: String, path: WritableKeyPath<CardAddress, String?> & Sendable, kind: Kind)] = [
      ("street", \.street, .text(maximum: 200, lines: .several)),
      ("city", \.city, .text(maximum: 100, lines: .one)),
      ("region", \.region, .text(maximum: 100, lines: .one)),
      ("postcode", \.postcode, .text(maximum: 20, lines: .one)),
      ("country", \.country, .text(maximum: 100, lines: .one)),
    ]

  static let addressFieldNames: Set<String> = Set(addressFields.map(\.name))

  /// Each string field's place in `stringFields`, by name.
  static let stringFieldIndex: [String: Int] = Dictionary(
    uniqueKeysWithValues: stringFields.enumerated().map { ($1.name, $0) })

  static let webLinkText = Kind.text(maximum: 100, lines: .one)

  /// Fields a client may read but never set.
  static let serverSet: Set<String> = [
    "id", "code", "slug", "url", "isPrimary", "isActive", "ownerId", "createdAt", "updatedAt",
  ]

  static let topLevelFields: Set<String> = Set(stringFields.map(\.name)).union([
    "firstName", "address", "location", "showOnMap", "webLinks",
  ])
  static let locationFields: Set<String> = ["lon", "lat", "source"]
  static let webLinkFields: Set<String> = ["url", "displayText"]

  // MARK: Checks. Each takes a trimmed, non-empty string and returns it as kept, or the reason.

  /// `value` as the field keeps it, or why it is refused.
  static func check(_ value: String, _ kind: Kind) -> Result<String, Reason> {
    switch kind {
    case .text(let maximum, let lines):
      if let reason = textProblem(value, maximum: maximum, lines: lines) { return .failure(reason) }
    case .email:
      if let reason = emailProblem(value) { return .failure(reason) }
    case .phone:
      if !isPhoneNumber(value) { return .failure("not a phone number") }
    case .url:
      if let reason = urlProblem(value) { return .failure(reason) }
    case .urlOrHandle(let handle):
      // A URL has a scheme; anything else must be a handle.
      if value.contains("://") {
        if let reason = urlProblem(value) { return .failure(reason) }
      } else {
        return keptHandle(value, handle)
      }
    case .color:
      return keptColor(value)
    }
    return .success(value)
  }

  struct Reason: Error, ExpressibleByStringLiteral {
    let text: String
    init(_ text: String) { self.text = text }
    init(stringLiteral text: String) { self.text = text }
  }

  static func textProblem(_ value: String, maximum: Int, lines: Lines) -> Reason? {
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\t":
        continue
      case "\n", "\r", "\u{2028}", "\u{2029}":
        if lines == .one { return "must be a single line" }
      default:
        // ASCII's controls without asking Unicode's tables (most text is ASCII).
        if scalar.isASCII
          ? scalar.value < 0x20 || scalar.value == 0x7F
          : scalar.properties.generalCategory == .control
        {
          return "must not contain control characters"
        }
      }
    }
    // Code points are never more than UTF-8 bytes: most values need no counting.
    if value.utf8.count > maximum, value.unicodeScalars.count > maximum {
      return Reason("at most \(maximum) characters")
    }
    return nil
  }

  /// The accounts' rule for an email address (`Accounts.Validation`, which is not public).
  static func emailProblem(_ email: String) -> Reason? {
    guard email.utf8.count <= maximumEmailBytes else {
      return Reason("longer than \(maximumEmailBytes) bytes")
    }
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2, let local = parts.first, let domain = parts.last,
      !local.isEmpty, local.utf8.count <= 64, domain.contains("."),
      !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..")
    else { return "not an email address" }
    for scalar in email.unicodeScalars {
      // No spaces, controls, or characters that would end a header or a quoted string.
      if scalar.value <= 32 || scalar.value == 127 || Self.endsAnAddress(scalar)
        || (!scalar.isASCII && scalar.properties.generalCategory == .control)
      {
        return "not an email address"
      }
    }
    return nil
  }

  /// Characters that would end a mail header's address or a quoted string.
  static func endsAnAddress(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "\"", "(", ")", ",", ":", ";", "<", ">", "[", "\\", "]": true
    default: false
    }
  }

  /// An international number (`+`, a country code not starting with 0, 8 to 15 digits in all)
  /// or a national one (7 to 15 digits). Either may be written with spaces, dashes, dots and one
  /// pair of parentheses between its digits (`+1 (415) 555-0100`, `020 7946 0958`): E.164 proper
  /// has none, but people write them, and a client dialling the number drops them.
  static func isPhoneNumber(_ phone: String) -> Bool {
    let scalars = Array(phone.unicodeScalars)
    let international = scalars.first == "+"
    var digits = 0
    var inParentheses = false
    var parenthesesUsed = false
    for (index, scalar) in scalars.enumerated() {
      switch scalar {
      case "+":
        guard index == 0 else { return false }
      case "0"..."9":
        if international && digits == 0 && scalar == "0" { return false }
        digits += 1
      case " ", "-", ".":
        // Only after a digit or a `)`: never two in a row (`1--2`), nor after `+` or `(`.
        guard index > 0, ("0"..."9").contains(scalars[index - 1]) || scalars[index - 1] == ")"
        else { return false }
      case "(":
        guard !parenthesesUsed else { return false }
        inParentheses = true
        parenthesesUsed = true
      case ")":
        guard inParentheses, scalars[index - 1] != "(" else { return false }
        inParentheses = false
      default:
        return false
      }
    }
    guard !inParentheses, let last = scalars.last, ("0"..."9").contains(last) else { return false }
    return international ? (8...15).contains(digits) : (7...15).contains(digits)
  }

  /// Why `url` is not an absolute http or https URL with a host, if it is not. Characters
  /// beyond ASCII are allowed (`https://bücher.de/straße`), spaces, controls and the ASCII
  /// characters RFC 3986 excludes (`"<>\^`{|}`) are not, nor a user name or password before
  /// the host (`https://bank.com@evil.example` is a phishing trick), nor invisible or
  /// direction-changing characters, nor a host that passes for another (`LookAlikeHosts`).
  static func urlProblem(_ url: String) -> Reason? {
    guard url.utf8.count <= maximumURLBytes else {
      return Reason("longer than \(maximumURLBytes) bytes")
    }
    for scalar in url.unicodeScalars {
      if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
        return "must not contain spaces or control characters"
      }
      // Invisible characters, and those that turn text around (U+202E), disguise a URL.
      if scalar.properties.generalCategory == .format {
        return "must not contain invisible or direction-changing characters"
      }
      if "\"<>\\^`{|}".unicodeScalars.contains(scalar) { return "not a valid URL" }
    }
    guard let separator = url.range(of: "://"),
      ["http", "https"].contains(url[..<separator.lowerBound].lowercased())
    else { return "must be an http or https URL" }
    let rest = url[separator.upperBound...]
    let authority = rest.prefix { !"/?#".contains($0) }
    if authority.contains("@") { return "must not contain a user name or password" }
    var host = Substring(authority)
    var port: Substring?
    if authority.hasPrefix("[") {
      // An IPv6 literal: `[2001:db8::1]` or `[2001:db8::1]:8080`.
      guard let close = authority.firstIndex(of: "]") else { return "must have a valid host" }
      let literal = authority[authority.index(after: authority.startIndex)..<close]
      guard literal.contains(":"), literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
      else { return "must have a valid host" }
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.first == ":" else { return "must have a valid host" }
        port = after.dropFirst()
      }
    } else {
      if let colon = authority.lastIndex(of: ":") {
        host = authority[..<colon]
        port = authority[authority.index(after: colon)...]
      }
      let labels = host.split(separator: ".", omittingEmptySubsequences: false)
      guard !host.isEmpty,
        labels.allSatisfy({ label in
          !label.isEmpty && label.first != "-" && label.last != "-"
            && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        })
      else { return "must have a valid host" }
      if LookAlikeHosts.isDeceptive(host) { return "must not have a look-alike host" }
    }
    if let port {
      guard (1...5).contains(port.count), port.allSatisfy({ $0.isASCII && $0.isNumber }),
        let number = Int(port), (1...65_535).contains(number)
      else { return "must have a valid port" }
    }
    return nil
  }

  /// `#rrggbb` in lowercase, or why it is refused: no other spelling (`#abc`, a name, `rgb()`).
  static func keptColor(_ value: String) -> Result<String, Reason> {
    let digits = value.utf8.dropFirst()
    guard value.utf8.count == 7, value.hasPrefix("#"),
      digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) })
    else { return .failure("must be a colour as #rrggbb") }
    return .success(value.lowercased())
  }

  /// A bare handle as kept (the `@` of a Twitter handle dropped), or why it is refused.
  static func keptHandle(_ value: String, _ handle: Handle) -> Result<String, Reason> {
    func isASCIIAlphanumeric(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber) }
    switch handle {
    case .linkedIn:
      if (3...100).contains(value.count),
        value.allSatisfy({ isASCIIAlphanumeric($0) || $0 == "-" })
      {
        return .success(value)
      }
    case .twitter:
      let name = value.hasPrefix("@") ? value.dropFirst() : Substring(value)
      if (1...15).contains(name.count), name.allSatisfy({ isASCIIAlphanumeric($0) || $0 == "_" }) {
        return .success(String(name))
      }
    }
    return .failure("must be an http or https URL or a handle")
  }
}
