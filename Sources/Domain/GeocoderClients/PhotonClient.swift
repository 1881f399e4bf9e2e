import Foundation
import Geocoding
import Geodesy

/// A client of Photon's API (komoot): `/api` and `/reverse`, GeoJSON. Photon has no label and
/// no score: the label is built from the parts, the confidence derived (docs/GEOCODING-HTTP.md).
public struct PhotonClient: Geocoder {
  public let name = "photon"
  public let configuration: ServiceConfiguration
  /// Photon's `lang`: the language of names ("default" is the local one).
  public var language: String?

  public init(_ configuration: ServiceConfiguration, language: String? = nil) {
    self.configuration = configuration
    self.language = language
  }

  public func search(_ query: GeocodeQuery) async throws -> [Place] {
    let query = try query.validated()
    let text = query.line
    // Photon has no country filter: ask for more and keep those in the country.
    let limit = query.countryCode == nil ? query.limit : min(50, query.limit * 4)
    let body = try await configuration.get(
      "api", [("q", text), ("limit", String(limit)), ("lang", language)])
    var places = try Self.places(body, host: configuration.hostKey)
    if let code = query.countryCode { places = places.filter { $0.countryCode == code } }
    return Self.scored(Array(places.prefix(query.limit)), query: text)
  }

  public func reverse(lon: Double, lat: Double) async throws -> Place? {
    try validateCoordinate(lon: lon, lat: lat)
    let body = try await configuration.get(
      "reverse", [("lon", String(lon)), ("lat", String(lat)), ("limit", "1"), ("lang", language)])
    guard var place = try Self.places(body, host: configuration.hostKey).first else {
      return nil
    }
    let metres = Sphere.earth.distance(
      longitude: lon, latitude: lat, longitude: place.lon, latitude: place.lat)
    place.distance = metres
    place.confidence = Confidence.ofDistance(metres)
    return place
  }

  /// Normalizes an answer, confidence left at 0.
  static func places(_ body: Data, host: String) throws -> [Place] {
    try GeoJSONFeature.features(JSON.parse(body, host: host), host: host).map(place)
  }

  /// Photon sends no score: the confidence is the query's word coverage of the label, less 0.1
  /// per rank below the first (at most halved).
  static func scored(_ places: [Place], query: String) -> [Place] {
    places.enumerated().map { rank, place in
      var place = place
      let coverage = Confidence.coverage(query: query, result: [place.label])
      place.confidence = Confidence.clamp(coverage * max(0.5, 1 - 0.1 * Double(rank)))
      return place
    }
  }

  static func place(_ f: GeoJSONFeature) -> Place {
    let street = [f.string("street"), f.string("housenumber")].compactMap { $0 }
      .joined(separator: " ")
    let name = f.string("name") ?? (street.isEmpty ? nil : street) ?? f.string("city") ?? ""
    let town = f.string("city") ?? f.string("town") ?? f.string("village") ?? f.string("locality")
    // "Name, Street 12, 9490 Vaduz, Oberland, Liechtenstein", each part once ("Berlin" is in
    // "14053 Berlin" already).
    var parts: [String] = []
    for part in [
      name, street.isEmpty ? nil : street,
      [f.string("postcode"), town].compactMap { $0 }.joined(separator: " "),
      f.string("state"), f.string("country"),
    ] {
      if let part, !part.isEmpty, !parts.contains(where: { $0 == part || $0.hasSuffix(" " + part) })
      {
        parts.append(part)
      }
    }
    // extent is [west, north, east, south].
    var bbox = f.bbox
    if let e = f.properties["extent"]?.array?.compactMap(\.double), e.count == 4 {
      bbox = BoundingBox(
        minLon: min(e[0], e[2]), minLat: min(e[1], e[3]), maxLon: max(e[0], e[2]),
        maxLat: max(e[1], e[3]))
    }
    var ids: [String: String] = [:]
    ids["osm_type"] = f.string("osm_type")
    ids["osm_id"] = f.string("osm_id")
    ids["osm_key"] = f.string("osm_key")
    ids["osm_value"] = f.string("osm_value")
    return Place(
      lon: f.lon, lat: f.lat, label: parts.joined(separator: ", "), bbox: bbox, confidence: 0,
      provider: "photon", ids: ids, name: name, region: f.string("state"),
      countryCode: f.string("countrycode")?.uppercased(), country: f.string("country"),
      postcode: f.string("postcode"))
  }
}
