/// Why a geocoding request was refused before it was run.
public enum GeocodeError: Error, Equatable, Sendable, CustomStringConvertible {
  case emptyQuery
  /// Free text and structured parts together: services take one or the other.
  case mixedQuery
  case queryTooLong(bytes: Int, maximum: Int)
  case badLimit(Int, maximum: Int)
  case badCountryCode(String)
  case unknownCountryCode(String)
  case badRegion(String)
  /// NaN, infinite or out of range (longitude -180...180, latitude -90...90).
  case badCoordinate(longitude: Double, latitude: Double)

  public var description: String {
    switch self {
    case .emptyQuery: return "the address is empty"
    case .mixedQuery:
      return "give the address as free text or as parts (street, city, postcode), not both"
    case .queryTooLong(let bytes, let maximum):
      return "the address is \(bytes) bytes long; at most \(maximum) are accepted"
    case .badLimit(let limit, let maximum):
      return "the count must be between 1 and \(maximum), got \(limit)"
    case .badCountryCode(let code):
      return "a country code is two letters (ISO 3166-1 alpha-2), got \"\(code)\""
    case .unknownCountryCode(let code): return "no country has the code \"\(code)\""
    case .badRegion(let region): return "the region is empty or too long: \"\(region)\""
    case .badCoordinate(let longitude, let latitude):
      return "invalid coordinate (\(longitude), \(latitude)): longitude must be within -180...180"
        + " and latitude within -90...90"
    }
  }
}

/// Checks a reverse-geocoding point, for every `Geocoder` to share.
public func validateCoordinate(lon: Double, lat: Double) throws(GeocodeError) {
  guard lon.isFinite, lat.isFinite, (-180...180).contains(lon), (-90...90).contains(lat) else {
    throw .badCoordinate(longitude: lon, latitude: lat)
  }
}
