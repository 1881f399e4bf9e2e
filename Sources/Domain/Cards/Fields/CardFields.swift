/// What a card's owner sets: the card model's fields without the ones the server sets (`id`,
/// `code`, `slug`, `url`, `isPrimary`, `isActive`, `ownerId`, `createdAt`, `updatedAt`).
///
/// Values made by `parse` and `merging` obey the rules in `FieldRules`: strings are trimmed and
/// never empty (an absent field is nil), and `parse(json(), isPro: true)` gives the same value.
/// The JSON field names are the property names; `location` is `{lon, lat, source}`.
public struct CardFields: Sendable, Equatable {
  /// The optional text fields the card has, and its address's parts: most cards set a handful
  /// of the 39, and holding each as an optional string (16 bytes whatever it holds) was most of
  /// a card's memory.
  private(set) var texts = SparseTexts()

  /// Required; never empty.
  public var firstName: String

  /// An optional text field, by its rules.
  subscript(field: FieldRules.StringField) -> String? {
    get { texts[field.key] }
    set { texts[field.key] = newValue }
  }
  public var middleName: String? {
    get { texts[.middleName] }
    set { texts[.middleName] = newValue }
  }
  public var lastName: String? {
    get { texts[.lastName] }
    set { texts[.lastName] = newValue }
  }
  /// "Dr.", "Ms.", ...
  public var prefix: String? {
    get { texts[.prefix] }
    set { texts[.prefix] = newValue }
  }
  /// "Ph.D.", "MD", ...
  public var credentials: String? {
    get { texts[.credentials] }
    set { texts[.credentials] = newValue }
  }
  /// "she/her", ...
  public var pronouns: String? {
    get { texts[.pronouns] }
    set { texts[.pronouns] = newValue }
  }
  /// A short tagline.
  public var description: String? {
    get { texts[.description] }
    set { texts[.description] = newValue }
  }
  public var jobTitle: String? {
    get { texts[.jobTitle] }
    set { texts[.jobTitle] = newValue }
  }
  public var company: String? {
    get { texts[.company] }
    set { texts[.company] = newValue }
  }
  public var phoneNumber: String? {
    get { texts[.phoneNumber] }
    set { texts[.phoneNumber] = newValue }
  }
  public var secondaryPhone: String? {
    get { texts[.secondaryPhone] }
    set { texts[.secondaryPhone] = newValue }
  }
  public var email: String? {
    get { texts[.email] }
    set { texts[.email] = newValue }
  }
  /// A bio; may hold several lines.
  public var aboutMe: String? {
    get { texts[.aboutMe] }
    set { texts[.aboutMe] = newValue }
  }
  /// May hold several lines.
  public var customMessage: String? {
    get { texts[.customMessage] }
    set { texts[.customMessage] = newValue }
  }
  public var customMessageHeader: String? {
    get { texts[.customMessageHeader] }
    set { texts[.customMessageHeader] = newValue }
  }
  public var address: CardAddress? {
    get {
      let address = CardAddress(
        street: texts[.street], city: texts[.city], region: texts[.region],
        postcode: texts[.postcode], country: texts[.country])
      return address.isEmpty ? nil : address
    }
    set {
      texts[.street] = newValue?.street
      texts[.city] = newValue?.city
      texts[.region] = newValue?.region
      texts[.postcode] = newValue?.postcode
      texts[.country] = newValue?.country
    }
  }
  /// Where the card is on the map.
  public var location: CardLocation?
  /// Whether the card may appear on the map (CARD.SEARCH, CARD.CLUSTERS).
  public var showOnMap: Bool
  /// A profile URL or a bare handle (`jane-doe`).
  public var linkedIn: String? {
    get { texts[.linkedIn] }
    set { texts[.linkedIn] = newValue }
  }
  /// A profile URL or a bare handle, kept without its `@` (`jane_doe`).
  public var twitter: String? {
    get { texts[.twitter] }
    set { texts[.twitter] = newValue }
  }
  public var facebookUrl: String? {
    get { texts[.facebookUrl] }
    set { texts[.facebookUrl] = newValue }
  }
  public var instagramUrl: String? {
    get { texts[.instagramUrl] }
    set { texts[.instagramUrl] = newValue }
  }
  public var tiktokUrl: String? {
    get { texts[.tiktokUrl] }
    set { texts[.tiktokUrl] = newValue }
  }
  public var youtubeUrl: String? {
    get { texts[.youtubeUrl] }
    set { texts[.youtubeUrl] = newValue }
  }
  public var discordUrl: String? {
    get { texts[.discordUrl] }
    set { texts[.discordUrl] = newValue }
  }
  public var twitchUrl: String? {
    get { texts[.twitchUrl] }
    set { texts[.twitchUrl] = newValue }
  }
  public var snapchatUrl: String? {
    get { texts[.snapchatUrl] }
    set { texts[.snapchatUrl] = newValue }
  }
  public var telegramUrl: String? {
    get { texts[.telegramUrl] }
    set { texts[.telegramUrl] = newValue }
  }
  public var whatsappUrl: String? {
    get { texts[.whatsappUrl] }
    set { texts[.whatsappUrl] = newValue }
  }
  public var threadsUrl: String? {
    get { texts[.threadsUrl] }
    set { texts[.threadsUrl] = newValue }
  }
  /// The owner's own links, in their order.
  public var webLinks: [CardWebLink]
  /// Pro only, like the other `cv` fields.
  public var cvUrl: String? {
    get { texts[.cvUrl] }
    set { texts[.cvUrl] = newValue }
  }
  public var cvHeader: String? {
    get { texts[.cvHeader] }
    set { texts[.cvHeader] = newValue }
  }
  /// May hold several lines.
  public var cvDescription: String? {
    get { texts[.cvDescription] }
    set { texts[.cvDescription] = newValue }
  }
  public var cvDisplayText: String? {
    get { texts[.cvDisplayText] }
    set { texts[.cvDisplayText] = newValue }
  }
  /// The profile picture.
  public var imageUrl: String? {
    get { texts[.imageUrl] }
    set { texts[.imageUrl] = newValue }
  }
  public var logoUrl: String? {
    get { texts[.logoUrl] }
    set { texts[.logoUrl] = newValue }
  }
  /// The page's accent, `#rrggbb` (kept in lowercase).
  public var themeColor: String? {
    get { texts[.themeColor] }
    set { texts[.themeColor] = newValue }
  }
  /// A wide picture across the top of the page, under the same rules as `imageUrl`.
  public var bannerUrl: String? {
    get { texts[.bannerUrl] }
    set { texts[.bannerUrl] = newValue }
  }

  public init(
    firstName: String, middleName: String? = nil, lastName: String? = nil,
    prefix: String? = nil, credentials: String? = nil, pronouns: String? = nil,
    description: String? = nil, jobTitle: String? = nil, company: String? = nil,
    phoneNumber: String? = nil, secondaryPhone: String? = nil, email: String? = nil,
    aboutMe: String? = nil, customMessage: String? = nil, customMessageHeader: String? = nil,
    address: CardAddress? = nil, location: CardLocation? = nil, showOnMap: Bool = false,
    linkedIn: String? = nil, twitter: String? = nil, facebookUrl: String? = nil,
    instagramUrl: String? = nil, tiktokUrl: String? = nil, youtubeUrl: String? = nil,
    discordUrl: String? = nil, twitchUrl: String? = nil, snapchatUrl: String? = nil,
    telegramUrl: String? = nil, whatsappUrl: String? = nil, threadsUrl: String? = nil,
    webLinks: [CardWebLink] = [], cvUrl: String? = nil, cvHeader: String? = nil,
    cvDescription: String? = nil, cvDisplayText: String? = nil, imageUrl: String? = nil,
    logoUrl: String? = nil, themeColor: String? = nil, bannerUrl: String? = nil
  ) {
    self.firstName = firstName
    self.location = location
    self.showOnMap = showOnMap
    self.webLinks = webLinks
    self.middleName = middleName
    self.lastName = lastName
    self.prefix = prefix
    self.credentials = credentials
    self.pronouns = pronouns
    self.description = description
    self.jobTitle = jobTitle
    self.company = company
    self.phoneNumber = phoneNumber
    self.secondaryPhone = secondaryPhone
    self.email = email
    self.aboutMe = aboutMe
    self.customMessage = customMessage
    self.customMessageHeader = customMessageHeader
    self.address = address
    self.linkedIn = linkedIn
    self.twitter = twitter
    self.facebookUrl = facebookUrl
    self.instagramUrl = instagramUrl
    self.tiktokUrl = tiktokUrl
    self.youtubeUrl = youtubeUrl
    self.discordUrl = discordUrl
    self.twitchUrl = twitchUrl
    self.snapchatUrl = snapchatUrl
    self.telegramUrl = telegramUrl
    self.whatsappUrl = whatsappUrl
    self.threadsUrl = threadsUrl
    self.cvUrl = cvUrl
    self.cvHeader = cvHeader
    self.cvDescription = cvDescription
    self.cvDisplayText = cvDisplayText
    self.imageUrl = imageUrl
    self.logoUrl = logoUrl
    self.themeColor = themeColor
    self.bannerUrl = bannerUrl
  }

  /// The fields from their parts as held (`PackedFields`).
  init(
    firstName: String, texts: SparseTexts, location: CardLocation?, showOnMap: Bool,
    webLinks: [CardWebLink]
  ) {
    self.firstName = firstName
    self.texts = texts
    self.location = location
    self.showOnMap = showOnMap
    self.webLinks = webLinks
  }
}

/// A postal address; every part is optional. `street` may hold several lines.
public struct CardAddress: Sendable, Equatable {
  public var street: String?
  public var city: String?
  public var region: String?
  public var postcode: String?
  public var country: String?

  public init(
    street: String? = nil, city: String? = nil, region: String? = nil, postcode: String? = nil,
    country: String? = nil
  ) {
    self.street = street
    self.city = city
    self.region = region
    self.postcode = postcode
    self.country = country
  }

  /// No part is set: the card has no address.
  public var isEmpty: Bool {
    street == nil && city == nil && region == nil && postcode == nil && country == nil
  }
}

/// A point on the map, in degrees, and how it was found.
///
/// Coordinates are kept to 1e-9 degree (under a millimetre): Foundation's JSON parser on Linux
/// misreads some 17-digit numbers, and with at most 12 significant digits a location survives
/// `json()` and `parse` exactly. Any value with at most 9 decimals is kept as it is.
public struct CardLocation: Sendable, Equatable {
  public enum Source: String, Sendable, Equatable, CaseIterable {
    /// The owner's device reported it.
    case gps
    /// Found from the card's address.
    case geocoded
    /// Set by hand; the default.
    case manual
  }

  public var longitude: Double { didSet { longitude = Self.kept(longitude) } }
  public var latitude: Double { didSet { latitude = Self.kept(latitude) } }
  public var source: Source

  public init(longitude: Double, latitude: Double, source: Source = .manual) {
    self.longitude = Self.kept(longitude)
    self.latitude = Self.kept(latitude)
    self.source = source
  }

  /// `degrees` to the nearest 1e-9 (non-finite values unchanged).
  static func kept(_ degrees: Double) -> Double {
    guard degrees.isFinite else { return degrees }
    return (degrees * 1e9).rounded() / 1e9
  }
}

/// One of the owner's links: its URL (required in JSON), and the text shown instead of it.
public struct CardWebLink: Sendable, Equatable {
  public var url: String?
  public var displayText: String?

  public init(url: String?, displayText: String? = nil) {
    self.url = url
    self.displayText = displayText
  }
}

/// Why owner-set fields were refused: `INVALID <field>: <reason>` on the wire, where a field in
/// an object or an array is named by its path (`address.city`, `webLinks[2].url`) and the
/// input as a whole is `json`.
public struct CardFieldError: Error, Sendable, Equatable, CustomStringConvertible {
  public let field: String
  public let reason: String

  public init(field: String, reason: String) {
    self.field = field
    self.reason = reason
  }

  public var description: String { "\(field): \(reason)" }
}

/// Optional texts by key, holding only those present: a bit per key says which, and the values
/// follow in key order (a card's few set fields cost 16 bytes each and one array).
struct SparseTexts: Sendable, Equatable {
  enum Key: UInt8 {
    case middleName, lastName, prefix, credentials, pronouns, description, jobTitle, company,
      phoneNumber, secondaryPhone, email, aboutMe, customMessage, customMessageHeader, linkedIn,
      twitter, facebookUrl, instagramUrl, tiktokUrl, youtubeUrl, discordUrl, twitchUrl, snapchatUrl,
      telegramUrl, whatsappUrl, threadsUrl, cvUrl, cvHeader, cvDescription, cvDisplayText, imageUrl,
      logoUrl, themeColor, bannerUrl, street, city, region, postcode, country
  }

  /// Bit `key.rawValue` set: the key has a value.
  private(set) var present: UInt64 = 0
  /// The values present, in key order.
  private(set) var values: [String] = []

  init() {}

  /// `values` in key order, one for each bit of `present`.
  init(present: UInt64, values: [String]) {
    precondition(present.nonzeroBitCount == values.count)
    self.present = present
    self.values = values
  }

  subscript(key: Key) -> String? {
    get {
      let bit: UInt64 = 1 << key.rawValue
      guard present & bit != 0 else { return nil }
      return values[(present & (bit - 1)).nonzeroBitCount]
    }
    set {
      let bit: UInt64 = 1 << key.rawValue
      let i = (present & (bit - 1)).nonzeroBitCount
      switch (newValue, present & bit != 0) {
      case (let value?, true): values[i] = value
      case (let value?, false):
        values.insert(value, at: i)
        present |= bit
      case (nil, true):
        values.remove(at: i)
        present &= ~bit
      case (nil, false): break
      }
    }
  }
}
