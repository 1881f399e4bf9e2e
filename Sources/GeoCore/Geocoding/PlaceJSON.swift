/// Places read back from the JSON `Place.encode` writes (the geocode cache's entries, the
/// `--json` lines), member by member (`JSONScanner`). Members it does not know are skipped, so
/// that an entry a later version wrote with more of them still reads.
extension Place {
  /// A JSON array of places; nil when the text is not one, or a place lacks a required member
  /// (`lon`, `lat`, `label`, `confidence`, `provider`, `name`) or has one of the wrong type.
  public static func list(json: String) -> [Place]? {
    JSONScanner.read(json) { scanner in
      var places: [Place] = []
      try scanner.array { places.append(try Place(&$0)) }
      return places
    }
  }

  /// One place's JSON object (a `--json` line), as `list(json:)` reads each.
  public init?(json: String) {
    guard let place = JSONScanner.read(json, { try Place(&$0) }) else { return nil }
    self = place
  }

  private init(_ scanner: inout JSONScanner) throws {
    var (lon, lat, confidence): (Double?, Double?, Double?)
    var (label, provider, name): (String?, String?, String?)
    var (region, countryCode, country, postcode): (String?, String?, String?, String?)
    var distance: Double?
    var bbox: BoundingBox?
    var ids: [String: String] = [:]
    try scanner.object { scanner, member in
      switch member {
      case "lon": lon = try scanner.number()
      case "lat": lat = try scanner.number()
      case "confidence": confidence = try scanner.number()
      case "label": label = try scanner.string()
      case "provider": provider = try scanner.string()
      case "name": name = try scanner.string()
      case "region": region = try scanner.optionalString()
      case "countryCode": countryCode = try scanner.optionalString()
      case "country": country = try scanner.optionalString()
      case "postcode": postcode = try scanner.optionalString()
      case "distance": distance = scanner.null() ? nil : try scanner.number()
      case "bbox":
        guard !scanner.null() else { break }
        var corners: [Double] = []
        try scanner.array { corners.append(try $0.number()) }
        guard corners.count == 4 else { throw JSONScanner.Invalid() }
        bbox = BoundingBox(
          minLon: corners[0], minLat: corners[1], maxLon: corners[2], maxLat: corners[3])
      case "ids":
        guard !scanner.null() else { break }
        try scanner.object { scanner, key in ids[key] = try scanner.string() }
      default: try scanner.skip()
      }
    }
    guard let lon, let lat, let label, let confidence, let provider, let name else {
      throw JSONScanner.Invalid()
    }
    self.init(
      lon: lon, lat: lat, label: label, bbox: bbox, confidence: confidence, provider: provider,
      ids: ids, name: name, region: region, countryCode: countryCode, country: country,
      postcode: postcode, distance: distance)
  }
}

extension JSONScanner {
  /// A string, or nil for `null`.
  fileprivate mutating func optionalString() throws -> String? { null() ? nil : try string() }
}
