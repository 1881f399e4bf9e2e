import Foundation

/// The map's markers as a GeoJSON FeatureCollection of Point features (CARD.CLUSTERS and
/// `GET /v1/cards`): clusters with `cluster: true`, `count` and `expansionZoom`, single cards
/// with their summary and `cluster: false`. Written directly, byte for byte as
/// `JSONSerialization` writes it with sorted keys (`JSONText`'s rules): each card's summary is
/// copied as held, not parsed and written again, which took most of a city view's time.
public enum CardGeoJSON {
  public static func featureCollection(_ markers: [CardMarker]) -> Data {
    var out = #"{"features":["#
    for (i, marker) in markers.enumerated() {
      if i > 0 { out += "," }
      switch marker {
      case .cluster(let count, let lon, let lat, let zoom):
        feature(
          &out, lon, lat, #"{"cluster":true,"count":\#(count),"expansionZoom":\#(zoom)}"#)
      case .card(let hit):
        feature(&out, hit.longitude, hit.latitude, properties(hit.summary))
      }
    }
    out += #"],"type":"FeatureCollection"}"#
    return Data(out.utf8)
  }

  /// A hit's summary as an object, to add to.
  public static func summary(_ hit: CardHit) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(hit.summary))) as? [String: Any] ?? [:]
  }

  private static func feature(
    _ out: inout String, _ longitude: Double, _ latitude: Double, _ properties: String
  ) {
    out += #"{"geometry":{"coordinates":["#
    out += JSONText.number(longitude) + "," + JSONText.number(latitude)
    out += #"],"type":"Point"},"properties":"#
    out += properties
    out += #","type":"Feature"}"#
  }

  /// A summary (a flat object, keys sorted, `CardSummary`) with `"cluster":false` among its
  /// members, in key order.
  static func properties(_ summary: [UInt8]) -> String {
    let added = Array(#""cluster":false"#.utf8)
    var i = 1  // past "{"
    while i < summary.count, summary[i] == UInt8(ascii: "\"") {
      let keyEnd = stringEnd(summary, i)
      let key = String(decoding: summary[(i + 1)..<(keyEnd - 1)], as: UTF8.self)
      if JSONText.precedes("cluster", key) {
        return String(
          decoding: summary[..<i] + added + [UInt8(ascii: ",")] + summary[i...], as: UTF8.self)
      }
      // Past the value (a string, or a number or literal up to the next "," or "}").
      var j = keyEnd + 1
      if j < summary.count, summary[j] == UInt8(ascii: "\"") {
        j = stringEnd(summary, j)
      } else {
        while j < summary.count, summary[j] != UInt8(ascii: ","), summary[j] != UInt8(ascii: "}") {
          j += 1
        }
      }
      i = j < summary.count && summary[j] == UInt8(ascii: ",") ? j + 1 : j
    }
    // Last: before the closing brace.
    let close = summary.count - 1
    let separator: [UInt8] = close > 1 ? [UInt8(ascii: ",")] : []
    return String(
      decoding: summary[..<close] + separator + added + [UInt8(ascii: "}")], as: UTF8.self)
  }

  /// The index just past the JSON string starting at `start` (its opening quote).
  private static func stringEnd(_ bytes: [UInt8], _ start: Int) -> Int {
    var i = start + 1
    while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
      i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
    }
    return i + 1
  }
}
