import Foundation
import Geocoding
import Geodesy

/// A client of Nominatim's API (`format=jsonv2`, `addressdetails=1`): free-form and structured
/// `/search`, and `/reverse`. Sends one request per call; wrap it in `PoliteGeocoder` for rate
/// limits and retries, and in `CachingGeocoder` for a cache.
public struct NominatimClient: StructuredGeocoder {
  public let name = "nominatim"
  public let configuration: ServiceConfiguration

  public init(_ configuration: ServiceConfiguration) {
    self.configuration = configuration
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    let query = try query.validated()
    if query.isStructured { return try await search(query.addressParts) }
    // Free text may not be combined with structured fields: the region joins the text.
    let text = query.line
    let body = try await configuration.get(
      "search",
      common + [
        ("q", text), ("limit", String(query.limit)),
        ("countrycodes", query.countryCode?.lowercased()),
      ])
    return try Self.places(body, query: text, host: configuration.hostKey)
  }

  public func search(_ address: AddressParts) async throws -> [Place] {
    let address = try address.validated()
    let country = address.country
    let code = country.flatMap { $0.count == 2 ? $0.lowercased() : nil }
    let body = try await configuration.get(
      "search",
      common + [
        ("street", address.street), ("city", address.city), ("county", address.county),
        ("state", address.region), ("postalcode", address.postcode),
        ("country", code == nil ? country : nil), ("countrycodes", code),
        ("limit", String(address.limit)),
      ])
    return try Self.places(body, query: address.text, host: configuration.hostKey)
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try validateCoordinate(lon: lon, lat: lat)
    let body = try await configuration.get(
      "reverse", common + [("lon", String(lon)), ("lat", String(lat))])
    let json = try JSON.parse(body, host: configuration.hostKey)
    // A miss is HTTP 200 with {"error": "Unable to geocode"}.
    if json["error"] != nil { return nil }
    guard var place = Self.place(json) else {
      throw GeocoderServiceError.badResponse(
        host: configuration.hostKey, reason: "a reverse answer without coordinates")
    }
    let metres = Sphere.earth.distance(
      longitude: lon, latitude: lat, longitude: place.lon, latitude: place.lat)
    place.distance = metres
    place.confidence = Confidence.ofDistance(metres)
    return place
  }

  private var common: [(String, String?)] {
    [("format", "jsonv2"), ("addressdetails", "1"), ("email", configuration.email)]
  }

  /// Normalizes a `/search` answer: confidence is the query's word coverage times the place's
  /// importance relative to the best candidate's (docs/GEOCODING-HTTP.md).
  static func places(_ body: Data, query: String, host: String) throws -> [Place] {
    let json = try JSON.parse(body, host: host)
    if let message = json["error"].map({ $0["message"]?.text ?? $0.text ?? "" }) {
      throw GeocoderServiceError.badResponse(host: host, reason: message)
    }
    guard let results = json.array else {
      throw GeocoderServiceError.badResponse(host: host, reason: "a search answer not a list")
    }
    var places = results.compactMap(place)
    guard places.count == results.count else {
      throw GeocoderServiceError.badResponse(host: host, reason: "a result without coordinates")
    }
    let importances = results.map { $0["importance"]?.double ?? 0 }
    let top = importances.max() ?? 0
    for i in places.indices {
      let share = top > 0 ? importances[i] / top : 1
      let coverage = Confidence.coverage(
        query: query, result: [places[i].label] + addressParts(results[i]))
      places[i].confidence = Confidence.clamp(coverage * share)
    }
    return places
  }

  /// One jsonv2 result, confidence left at 0; nil without coordinates.
  static func place(_ json: JSON) -> Place? {
    guard let lat = json["lat"]?.double, let lon = json["lon"]?.double else { return nil }
    let address = json["address"]?.object ?? [:]
    let label = json["display_name"]?.text ?? ""
    var ids: [String: String] = [:]
    ids["place_id"] = json["place_id"]?.text
    ids["osm_type"] = json["osm_type"]?.text
    ids["osm_id"] = json["osm_id"]?.text
    // [minLat, maxLat, minLon, maxLon], as strings.
    var bbox: BoundingBox?
    if let b = json["boundingbox"]?.array?.compactMap(\.double), b.count == 4 {
      bbox = BoundingBox(minLon: b[2], minLat: b[0], maxLon: b[3], maxLat: b[1])
    }
    // An unnamed house is named by its street and number, as the address says it.
    let street = [address["road"]?.text, address["house_number"]?.text].compactMap { $0 }
    let name =
      json["name"]?.text.flatMap { $0.isEmpty ? nil : $0 }
      ?? (street.count == 2 ? street.joined(separator: " ") : nil)
      ?? label.split(separator: ",").first.map(String.init) ?? label
    return Place(
      lon: lon, lat: lat, label: label, bbox: bbox, confidence: 0, provider: "nominatim",
      ids: ids, name: name, region: address["state"]?.text,
      countryCode: address["country_code"]?.text?.uppercased(), country: address["country"]?.text,
      postcode: address["postcode"]?.text)
  }

  private static func addressParts(_ json: JSON) -> [String] {
    (json["address"]?.object ?? [:]).values.compactMap(\.text)
  }
}
