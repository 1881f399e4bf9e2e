/// What a card's owner sets: the card model's fields without the ones the server sets (`id`,
/// `code`, `slug`, `url`, `isPrimary`, `isActive`, `ownerId`, `createdAt`, `updatedAt`).
///
/// Values made by `parse` and `merging` obey the rules in `FieldRules`: strings are trimmed and
/// never empty (an absent field is nil), and `parse(json(), isPro: true)` gives the same value.
/// The JSON field names are the property names; `location` is `{lon, lat, source}`.
public struct CardFields: Sendable, Equatable {
  /// Required; never empty.
  public var firstName: String
  public var middleName: String?
  public var lastName: String?
  /// "Dr.", "Ms.", ...
  public var prefix: String?
  /// "Ph.D.", "MD", ...
  public var credentials: String?
  /// "she/her", ...
  public var pronouns: String?
  /// A short tagline.
  public var description: String?
  public var jobTitle: String?
  public var company: String?
  public var phoneNumber: String?
  public var secondaryPhone: String?
  public var email: String?
  /// A bio; may hold several lines.
  public var aboutMe: String?
  /// May hold several lines.
  public var customMessage: String?
  public var customMessageHeader: String?
  public var address: CardAddress?
  /// Where the card is on the map.
  public var location: CardLocation?
  /// Whether the card may appear on the map (CARD.SEARCH, CARD.CLUSTERS).
  public var showOnMap: Bool
  /// A profile URL or a bare handle (`jane-doe`).
  public var linkedIn: String?
  /// A profile URL or a bare handle, kept without its `@` (`jane_doe`).
  public var twitter: String?
  public var facebookUrl: String?
  public var instagramUrl: String?
  public var tiktokUrl: String?
  public var youtubeUrl: String?
  public var discordUrl: String?
  public var twitchUrl: String?
  public var snapchatUrl: String?
  public var telegramUrl: String?
  public var whatsappUrl: String?
  public var threadsUrl: String?
  /// The owner's own links, in their order.
  public var webLinks: [CardWebLink]
  /// Pro only, like the other `cv` fields.
  public var cvUrl: String?
  public var cvHeader: String?
  /// May hold several lines.
  public var cvDescription: String?
  public var cvDisplayText: String?
  /// The profile picture.
  public var imageUrl: String?
  public var logoUrl: String?

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
    logoUrl: String? = nil
  ) {
    self.firstName = firstName
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
    self.location = location
    self.showOnMap = showOnMap
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
    self.webLinks = webLinks
    self.cvUrl = cvUrl
    self.cvHeader = cvHeader
    self.cvDescription = cvDescription
    self.cvDisplayText = cvDisplayText
    self.imageUrl = imageUrl
    self.logoUrl = logoUrl
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

  /// The error as one line: `INVALID email: not an email address`.
  public var message: String { "INVALID \(field): \(reason)" }

  public var description: String { message }
}
