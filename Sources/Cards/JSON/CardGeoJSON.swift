import Foundation

/// The map's markers as a GeoJSON FeatureCollection of Point features (CARD.CLUSTERS and
/// `GET /v1/cards`): clusters with `cluster: true`, `count` and `expansionZoom`, single cards
/// with their summary and `cluster: false`.
public enum CardGeoJSON {
  public static func featureCollection(_ markers: [CardMarker]) -> Data {
    CardJSON.data([
      "type": "FeatureCollection",
      "features": markers.map { marker -> [String: Any] in
        switch marker {
        case .cluster(let count, let lon, let lat, let zoom):
          return feature(lon, lat, ["cluster": true, "count": count, "expansionZoom": zoom])
        case .card(let hit):
          var properties = summary(hit)
          properties["cluster"] = false
          return feature(hit.longitude, hit.latitude, properties)
        }
      },
    ])
  }

  /// A hit's summary as an object, to add to (its JSON is the domain's own, `CardSummary`).
  public static func summary(_ hit: CardHit) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(hit.summary))) as? [String: Any] ?? [:]
  }

  private static func feature(
    _ longitude: Double, _ latitude: Double, _ properties: [String: Any]
  ) -> [String: Any] {
    [
      "type": "Feature", "geometry": ["type": "Point", "coordinates": [longitude, latitude]],
      "properties": properties,
    ]
  }
}
