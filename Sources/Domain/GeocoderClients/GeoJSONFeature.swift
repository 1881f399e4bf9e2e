import Geocoding

/// What Photon's and Pelias's GeoJSON features share: a point geometry and properties.
struct GeoJSONFeature {
  var lon: Double
  var lat: Double
  var properties: JSON
  /// The feature's own `bbox`, [minLon, minLat, maxLon, maxLat].
  var bbox: BoundingBox?

  /// The features of a FeatureCollection; throws for anything else.
  static func features(_ json: JSON, host: String) throws -> [GeoJSONFeature] {
    guard json["type"]?.text == "FeatureCollection", let features = json["features"]?.array
    else {
      throw GeocoderServiceError.badResponse(host: host, reason: "not a GeoJSON FeatureCollection")
    }
    return try features.map { feature in
      guard let point = feature["geometry"]?["coordinates"]?.array?.compactMap(\.double),
        point.count >= 2
      else {
        throw GeocoderServiceError.badResponse(host: host, reason: "a feature without a point")
      }
      var bbox: BoundingBox?
      if let b = feature["bbox"]?.array?.compactMap(\.double), b.count == 4 {
        bbox = BoundingBox(minLon: b[0], minLat: b[1], maxLon: b[2], maxLat: b[3])
      }
      return GeoJSONFeature(
        lon: point[0], lat: point[1], properties: feature["properties"] ?? .object([:]),
        bbox: bbox)
    }
  }

  func string(_ key: String) -> String? {
    properties[key]?.text.flatMap { $0.isEmpty ? nil : $0 }
  }
}
