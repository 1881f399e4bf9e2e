import Cards
import Foundation
import RESP

/// CARD.CLUSTERS's reply: a GeoJSON FeatureCollection of Point features, clusters with
/// `cluster: true`, `count` and `expansionZoom`, single cards with their summary.
enum CardGeoJSON {
  static func reply(_ markers: [CardMarker]) -> RESPValue {
    CardJSON.bulk([
      "type": "FeatureCollection",
      "features": markers.map { marker -> [String: Any] in
        switch marker {
        case .cluster(let count, let lon, let lat, let zoom):
          return feature(lon, lat, ["cluster": true, "count": count, "expansionZoom": zoom])
        case .card(let hit):
          // The hit's summary as an object, to add to (its JSON is the domain's own).
          var properties =
            (try? JSONSerialization.jsonObject(with: Data(hit.summary))) as? [String: Any] ?? [:]
          properties["cluster"] = false
          return feature(hit.longitude, hit.latitude, properties)
        }
      },
    ])
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
