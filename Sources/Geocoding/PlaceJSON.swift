import Foundation

/// Places read back from the JSON `Place.encode` writes (the geocode cache's entries, the
/// `--json` lines). Read through `JSONSerialization`: `JSONDecoder` took a fifth of a
/// warm-cache import's time.
extension Place {
  /// A JSON array of places; nil when the text is not one.
  public static func list(json: String) -> [Place]? {
    guard
      let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any]
    else { return nil }
    var places: [Place] = []
    places.reserveCapacity(array.count)
    for element in array {
      guard let object = element as? [String: Any], let place = Place(json: object) else {
        return nil
      }
      places.append(place)
    }
    return places
  }

  /// One place's JSON object; nil when a required member is missing or of the wrong type.
  public init?(json object: [String: Any]) {
    guard let lon = Self.number(object["lon"]), let lat = Self.number(object["lat"]),
      let label = object["label"] as? String,
      let confidence = Self.number(object["confidence"]),
      let provider = object["provider"] as? String, let name = object["name"] as? String
    else { return nil }
    var bbox: BoundingBox?
    if let corners = object["bbox"] as? [Any] {
      let numbers = corners.compactMap(Self.number)
      guard numbers.count == 4, corners.count == 4 else { return nil }
      bbox = BoundingBox(
        minLon: numbers[0], minLat: numbers[1], maxLon: numbers[2], maxLat: numbers[3])
    }
    var ids: [String: String] = [:]
    if let members = object["ids"] as? [String: Any] {
      for (key, value) in members {
        guard let text = value as? String else { return nil }
        ids[key] = text
      }
    }
    self.init(
      lon: lon, lat: lat, label: label, bbox: bbox, confidence: confidence, provider: provider,
      ids: ids, name: name, region: object["region"] as? String,
      countryCode: object["countryCode"] as? String, country: object["country"] as? String,
      postcode: object["postcode"] as? String, distance: Self.number(object["distance"]))
  }

  /// A JSON number, as `JSONSerialization` gives it.
  private static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
}
