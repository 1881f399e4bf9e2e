/// One geocoding result, the same whatever the provider.
public struct Place: Sendable, Hashable {
  public var lon: Double
  public var lat: Double
  /// A display string, e.g. "Prattville, Alabama, United States".
  public var label: String
  public var bbox: BoundingBox?
  /// How sure the provider is that this is the place meant, 0...1: the match's quality times
  /// its share among the candidates (see docs/GEOCODING.md).
  public var confidence: Double
  /// `Geocoder.name` of the provider that found it.
  public var provider: String
  /// The provider's identifiers, e.g. ["geonameid": "3042030"] or ["osm_type": "N", "osm_id": "..."].
  public var ids: [String: String]
  /// The structured parts: the place's own name, its first-level region and the country.
  public var name: String
  public var region: String?
  /// ISO 3166-1 alpha-2, upper case.
  public var countryCode: String?
  public var country: String?
  public var postcode: String?
  /// Metres from the point asked for, on reverse geocoding.
  public var distance: Double?

  public init(
    lon: Double, lat: Double, label: String, bbox: BoundingBox? = nil, confidence: Double,
    provider: String, ids: [String: String] = [:], name: String, region: String? = nil,
    countryCode: String? = nil, country: String? = nil, postcode: String? = nil,
    distance: Double? = nil
  ) {
    self.lon = lon
    self.lat = lat
    self.label = label
    self.bbox = bbox
    self.confidence = confidence
    self.provider = provider
    self.ids = ids
    self.name = name
    self.region = region
    self.countryCode = countryCode
    self.country = country
    self.postcode = postcode
    self.distance = distance
  }
}

/// `[minLon, minLat, maxLon, maxLat]` in degrees; minLon > maxLon when it crosses the antimeridian.
public struct BoundingBox: Sendable, Hashable, Encodable {
  public var minLon: Double
  public var minLat: Double
  public var maxLon: Double
  public var maxLat: Double

  public init(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) {
    self.minLon = minLon
    self.minLat = minLat
    self.maxLon = maxLon
    self.maxLat = maxLat
  }

  public func encode(to encoder: any Encoder) throws {
    var values = encoder.unkeyedContainer()
    try values.encode(contentsOf: [minLon, minLat, maxLon, maxLat])
  }
}

/// The JSON shape clients see: `lon`, `lat`, `label`, `bbox` (null when unknown),
/// `confidence`, `provider`, `ids`, then the parts that are known.
extension Place: Encodable {
  enum CodingKeys: String, CodingKey {
    case lon, lat, label, bbox, confidence, provider, ids, name, region, countryCode, country
    case postcode, distance
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(lon, forKey: .lon)
    try c.encode(lat, forKey: .lat)
    try c.encode(label, forKey: .label)
    try c.encode(bbox, forKey: .bbox)
    try c.encode(confidence, forKey: .confidence)
    try c.encode(provider, forKey: .provider)
    try c.encode(ids, forKey: .ids)
    try c.encode(name, forKey: .name)
    try c.encodeIfPresent(region, forKey: .region)
    try c.encodeIfPresent(countryCode, forKey: .countryCode)
    try c.encodeIfPresent(country, forKey: .country)
    try c.encodeIfPresent(postcode, forKey: .postcode)
    try c.encodeIfPresent(distance, forKey: .distance)
  }
}
