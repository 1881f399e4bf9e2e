/// A forward-geocoding request: either free text ("Paris, TX", "Städtle 1, 9490 Vaduz") or
/// structured parts (street, city, postcode, as an import's columns give them, for services'
/// structured search), optionally restricted to a region and a country, with a limit on the
/// candidates returned.
public struct GeocodeQuery: Sendable, Hashable {
  /// Free text; empty in a structured query.
  public var text: String
  public var street: String?
  public var city: String?
  public var postcode: String?
  /// A region (state, province, canton...) by name or code, e.g. "Alabama" or "TX".
  public var region: String?
  /// ISO 3166-1 alpha-2, either case.
  public var countryCode: String?
  public var limit: Int

  /// Longest text (or part) accepted, in UTF-8 bytes: far above any postal address.
  public static let maximumLength = 1_000
  public static let maximumLimit = 50

  public init(
    _ text: String = "", countryCode: String? = nil, region: String? = nil, limit: Int = 5,
    street: String? = nil, city: String? = nil, postcode: String? = nil
  ) {
    self.text = text
    self.street = street
    self.city = city
    self.postcode = postcode
    self.region = region
    self.countryCode = countryCode
    self.limit = limit
  }

  /// Has street, city or postcode.
  public var isStructured: Bool { street != nil || city != nil || postcode != nil }

  /// The query with every part trimmed (blank parts become nil) and the country upper-cased;
  /// throws for no text and no parts, text mixed with parts, oversized text or parts, a
  /// country code that is not two letters, or a bad limit.
  public func validated() throws(GeocodeError) -> GeocodeQuery {
    var query = self
    query.text = text.trimmingSpaces
    query.street = try Self.part(street)
    query.city = try Self.part(city)
    query.postcode = try Self.part(postcode)
    if query.isStructured {
      guard query.text.isEmpty else { throw .mixedQuery }
    } else {
      guard !query.text.isEmpty else { throw .emptyQuery }
    }
    guard query.text.utf8.count <= Self.maximumLength else {
      throw .queryTooLong(bytes: query.text.utf8.count, maximum: Self.maximumLength)
    }
    guard (1...Self.maximumLimit).contains(limit) else {
      throw .badLimit(limit, maximum: Self.maximumLimit)
    }
    if let code = countryCode?.trimmingSpaces {
      guard code.utf8.count == 2, code.utf8.allSatisfy(Self.isASCIILetter) else {
        throw .badCountryCode(code)
      }
      query.countryCode = code.uppercased()
    }
    if let region = region?.trimmingSpaces {
      guard !region.isEmpty, region.utf8.count <= Self.maximumLength else {
        throw .badRegion(region)
      }
      query.region = region
    }
    return query
  }

  private static func part(_ value: String?) throws(GeocodeError) -> String? {
    guard let value = value?.trimmingSpaces, !value.isEmpty else { return nil }
    guard value.utf8.count <= maximumLength else {
      throw .queryTooLong(bytes: value.utf8.count, maximum: maximumLength)
    }
    return value
  }

  private static func isASCIILetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
  }
}

extension String {
  var trimmingSpaces: String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }
}
