import Foundation
import Testing

@testable import Cards

/// `CardGeoJSON` writes its text directly: it must be byte for byte what JSONSerialization
/// writes for the same FeatureCollection (sorted keys, slashes unescaped), as CARD.CLUSTERS
/// answered before and its clients may compare.
@Suite("Card GeoJSON")
struct CardGeoJSONTests {
  /// What JSONSerialization writes for the markers: the reference.
  static func reference(_ markers: [CardMarker]) -> Data {
    func feature(_ lon: Double, _ lat: Double, _ properties: [String: Any]) -> [String: Any] {
      [
        "type": "Feature", "geometry": ["type": "Point", "coordinates": [lon, lat]],
        "properties": properties,
      ]
    }
    let features = markers.map { marker -> [String: Any] in
      switch marker {
      case .cluster(let count, let lon, let lat, let zoom):
        return feature(lon, lat, ["cluster": true, "count": count, "expansionZoom": zoom])
      case .card(let hit):
        var properties = CardGeoJSON.summary(hit)
        properties["cluster"] = false
        return feature(hit.longitude, hit.latitude, properties)
      }
    }
    return try! JSONSerialization.data(
      withJSONObject: ["type": "FeatureCollection", "features": features],
      options: [.sortedKeys, .withoutEscapingSlashes])
  }

  static let texts = [
    "Ana", "O'Brien \"Q\"", "back\\slash", "a/b", "Zoë 東京", "tab\there", "line\nbreak",
    "\u{1}control", "{\"json\":1}", "Ça,va;", "",
  ]

  /// A summary as `CardSummary` writes it: some fields set, some not.
  static func summary(_ random: inout SystemRandomNumberGenerator, id: Int64) -> [UInt8] {
    var object = JSONText()
    object.add("id", id)
    object.add("firstName", texts.randomElement(using: &random)!)
    for key in ["prefix", "lastName", "jobTitle", "company", "imageUrl", "city", "url"]
    where Bool.random(using: &random) {
      object.add(key, texts.randomElement(using: &random)!)
    }
    return Array(object.text.utf8)
  }

  @Test(
    "the FeatureCollection is JSONSerialization's, byte for byte, for random markers and summaries")
  func matchesJSONSerialization() {
    var random = SystemRandomNumberGenerator()
    #expect(CardGeoJSON.featureCollection([]) == Self.reference([]))
    for round in 0..<300 {
      let markers = (0..<Int.random(in: 0...12, using: &random)).map { i -> CardMarker in
        let lon = [Double.random(in: -180...180, using: &random), 0, -0.00001, 180, 2.5][i % 5]
        let lat = [Double.random(in: -85...85, using: &random), 1e-7, -45, 48.85][i % 4]
        if Bool.random(using: &random) {
          return .cluster(
            count: Int.random(in: 2...100_000, using: &random), longitude: lon, latitude: lat,
            expansionZoom: Int.random(in: 0...21, using: &random))
        }
        return .card(
          CardHit(
            id: Int64(round * 100 + i), summary: Self.summary(&random, id: Int64(i)),
            longitude: lon, latitude: lat, distance: 0))
      }
      let written = CardGeoJSON.featureCollection(markers)
      #expect(
        written == Self.reference(markers),
        "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: Self.reference(markers), as: UTF8.self))"
      )
    }
  }

  @Test("cluster: false goes in key order, whatever the summary holds")
  func clusterInPlace() {
    #expect(CardGeoJSON.properties(Array("{}".utf8)) == #"{"cluster":false}"#)
    #expect(
      CardGeoJSON.properties(Array(#"{"city":"a\"}","id":1}"#.utf8))
        == #"{"city":"a\"}","cluster":false,"id":1}"#)
    #expect(
      CardGeoJSON.properties(Array(#"{"city":"x","cl":2}"#.utf8))
        == #"{"city":"x","cl":2,"cluster":false}"#)
    #expect(CardGeoJSON.properties(Array(#"{"id":7}"#.utf8)) == #"{"cluster":false,"id":7}"#)
  }
}
