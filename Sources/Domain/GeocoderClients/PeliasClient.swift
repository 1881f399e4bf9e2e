import Foundation
import Geocoding

/// A client of Pelias's API: `/v1/search`, `/v1/search/structured` and `/v1/reverse`, GeoJSON.
/// Pelias sends a label and a confidence of its own; both are kept.
public struct PeliasClient: StructuredGeocoder {
  public let name = "pelias"
  public let configuration: ServiceConfiguration
  /// Hosted Pelias services (geocode.earth) want one; a self-hosted one does not.
  public var apiKey: String?

  public init(_ configuration: ServiceConfiguration, apiKey: String? = nil) {
    self.configuration = configuration
    self.apiKey = apiKey
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    let query = try query.validated()
    if query.isStructured { return try await search(query.addressParts) }
    let text = query.line
    let body = try await configuration.get(
      "v1/search",
      [
        ("text", text), ("size", String(query.limit)), ("boundary.country", query.countryCode),
        ("api_key", apiKey),
      ])
    return try Self.places(body, host: configuration.hostKey)
  }

  public func search(_ address: AddressParts) async throws -> [Place] {
    let address = try address.validated()
    let body = try await configuration.get(
      "v1/search/structured",
      [
        ("address", address.street), ("locality", address.city), ("county", address.county),
        ("region", address.region), ("postalcode", address.postcode),
        ("country", address.country), ("size", String(address.limit)), ("api_key", apiKey),
      ])
    return try Self.places(body, host: configuration.hostKey)
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try validateCoordinate(lon: lon, lat: lat)
    let body = try await configuration.get(
      "v1/reverse",
      [
        ("point.lon", String(lon)), ("point.lat", String(lat)), ("size", "1"),
        ("api_key", apiKey),
      ])
    return try Self.places(body, host: configuration.hostKey).first
  }

  static func places(_ body: Data, host: String) throws -> [Place] {
    let json = try JSON.parse(body, host: host)
    return try GeoJSONFeature.features(json, host: host).map(place)
  }

  static func place(_ f: GeoJSONFeature) -> Place {
    var ids: [String: String] = [:]
    for key in ["gid", "id", "source", "source_id", "layer"] { ids[key] = f.string(key) }
    let name = f.string("name") ?? f.string("label") ?? ""
    // Newer Pelias sends country_code (alpha-2); older ones only country_a (alpha-3).
    let code = f.string("country_code").flatMap { $0.count == 2 ? $0.uppercased() : nil }
    return Place(
      lon: f.lon, lat: f.lat, label: f.string("label") ?? name, bbox: f.bbox,
      confidence: Confidence.clamp(f.properties["confidence"]?.double ?? 0), provider: "pelias",
      ids: ids, name: name, region: f.string("region"), countryCode: code,
      country: f.string("country"), postcode: f.string("postalcode"),
      distance: f.properties["distance"]?.double.map { $0 * 1000 })
  }
}
