/// A structured search matches only when every part does, so a region the provider's data names
/// otherwise ("AL" for "Alabama", another language) or does not hold, or a postcode it lacks,
/// loses an address it knows. When a structured search finds nothing, this asks again without
/// the region, then also without the postcode: the street and city still pin the address down.
/// A match found so is less certain; each part dropped takes a tenth off its confidence. Only
/// misses cost the extra requests, and each goes through `inner` (its rate limit, its retries).
public struct RelaxingGeocoder: StructuredGeocoder {
  public let inner: any StructuredGeocoder
  public var name: String { inner.name }

  public init(_ inner: any StructuredGeocoder) { self.inner = inner }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    let query = try query.validated()
    guard query.isStructured else { return try await inner.search(query) }
    return try await search(query.addressParts)
  }

  public func search(_ address: AddressParts) async throws -> [Place] {
    var parts = try address.validated()
    var dropped = 0.0
    while true {
      let found = try await inner.search(parts)
      guard found.isEmpty, parts.street != nil || parts.city != nil,
        let relaxed = Self.relaxed(parts)
      else {
        return found.map { place in
          var place = place
          place.confidence *= 1 - 0.1 * dropped
          return place
        }
      }
      parts = relaxed
      dropped += 1
    }
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try await inner.reverse(lon: lon, lat: lat)
  }

  /// The parts with the next one to drop gone: the region, then the postcode; nil when neither
  /// is left to drop.
  static func relaxed(_ parts: AddressParts) -> AddressParts? {
    var parts = parts
    if parts.region != nil {
      parts.region = nil
    } else if parts.postcode != nil {
      parts.postcode = nil
    } else {
      return nil
    }
    return parts
  }
}
