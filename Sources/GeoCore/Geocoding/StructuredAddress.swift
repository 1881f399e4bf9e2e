/// An address in parts, as spreadsheets hold it: searched field by field by the providers that
/// can (Nominatim's and Pelias's structured search), which is more precise than free text.
public struct AddressParts: Sendable, Hashable {
  /// House number and street, e.g. "Austrasse 15".
  public var street: String?
  public var city: String?
  public var county: String?
  /// State, province, canton...
  public var region: String?
  public var postcode: String?
  /// A name or an ISO 3166-1 alpha-2 code.
  public var country: String?
  public var limit: Int

  public init(
    street: String? = nil, city: String? = nil, county: String? = nil, region: String? = nil,
    postcode: String? = nil, country: String? = nil, limit: Int = 5
  ) {
    self.street = street
    self.city = city
    self.county = county
    self.region = region
    self.postcode = postcode
    self.country = country
    self.limit = limit
  }

  /// The parts that are given, in address order, as one free-text line.
  public var text: String {
    [street, city, county, postcode, region, country].compactMap { part in
      part.flatMap { $0.trimmingSpaces.isEmpty ? nil : $0.trimmingSpaces }
    }.joined(separator: ", ")
  }

  /// Throws `.emptyQuery` when no part is given, and what `GeocodeQuery.validated` throws for
  /// an oversized text or a bad limit.
  public func validated() throws(GeocodeError) -> AddressParts {
    _ = try GeocodeQuery(text, limit: limit).validated()
    var parts = self
    for path in [\AddressParts.street, \.city, \.county, \.region, \.postcode, \.country] {
      let value = parts[keyPath: path]?.trimmingSpaces
      parts[keyPath: path] = value?.isEmpty == true ? nil : value
    }
    return parts
  }
}

/// A geocoder that also searches addresses in parts. Those that cannot join the parts into
/// free text (`AddressParts.text`).
public protocol StructuredGeocoder: Geocoder {
  func search(_ address: AddressParts) async throws -> [Place]
}

extension GeocodeQuery {
  /// A structured query's parts (its country code as the country), for a provider's structured
  /// search.
  public var addressParts: AddressParts {
    AddressParts(
      street: street, city: city, region: region, postcode: postcode, country: countryCode,
      limit: limit)
  }

  /// The query as one line, for a provider without structured search: the parts in address
  /// order, or the text followed by its region.
  public var line: String {
    isStructured
      ? addressParts.text : [text, region].compactMap { $0 }.joined(separator: ", ")
  }
}
