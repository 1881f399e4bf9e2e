/// A forward-geocoding request: free text ("Paris, TX", "Städtle 1, 9490 Vaduz"), optionally
/// restricted to a country and a region, and a limit on the candidates returned.
public struct GeocodeQuery: Sendable, Hashable {
  public var text: String
  /// ISO 3166-1 alpha-2, either case.
  public var countryCode: String?
  /// A region (state, province, canton...) by name or code, e.g. "Alabama" or "TX".
  public var region: String?
  public var limit: Int

  /// Longest query text accepted, in UTF-8 bytes: far above any postal address.
  public static let maximumLength = 1_000
  public static let maximumLimit = 50

  public init(_ text: String, countryCode: String? = nil, region: String? = nil, limit: Int = 5) {
    self.text = text
    self.countryCode = countryCode
    self.region = region
    self.limit = limit
  }

  /// The query with its text, country and region trimmed and the country upper-cased; throws
  /// for empty or oversized text, a country code that is not two letters, or a bad limit.
  public func validated() throws(GeocodeError) -> GeocodeQuery {
    var query = self
    query.text = text.trimmingSpaces
    guard !query.text.isEmpty else { throw .emptyQuery }
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
