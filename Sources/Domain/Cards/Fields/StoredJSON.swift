import Geocoding

/// The fields the store holds (`CardFields.json()`'s text) read by `JSONScanner` straight into
/// `CardFields`. Foundation's parser, and its bridging of every value to an object, was a third
/// of a 1M-card start; building dictionaries of `Any` for `JSONInput` to read was still a
/// quarter of the rest. It takes what `json()` writes and nothing else: anything other (a null,
/// an unknown name, a value of another type or out of range) answers nil, and the caller reads
/// the text as `JSONInput` does, whose fields or error then stand.
enum StoredJSON {
  static func fields(_ text: String) -> CardFields? {
    JSONScanner.read(text) { try fields(&$0) }
  }

  private struct Other: Error {}

  private static func fields(_ scanner: inout JSONScanner) throws -> CardFields {
    var fields = CardFields(firstName: "")
    var named = false
    try scanner.object { scanner, name in
      if let index = FieldRules.stringFieldIndex[name] {
        fields[FieldRules.stringFields[index]] = try text(&scanner)
        return
      }
      switch name {
      case "firstName":
        guard let firstName = try text(&scanner) else { throw Other() }
        fields.firstName = firstName
        named = true
      case "showOnMap": fields.showOnMap = try scanner.bool()
      case "webLinks": fields.webLinks = try webLinks(&scanner)
      case "address": fields.address = try address(&scanner)
      case "location": fields.location = try location(&scanner)
      default: throw Other()
      }
    }
    guard named else { throw Other() }
    return fields
  }

  private static func address(_ scanner: inout JSONScanner) throws -> CardAddress? {
    var address = CardAddress()
    try scanner.object { scanner, name in
      guard let part = FieldRules.addressFields.first(where: { $0.name == name }) else {
        throw Other()
      }
      address[keyPath: part.path] = try text(&scanner)
    }
    return address.isEmpty ? nil : address
  }

  private static func location(_ scanner: inout JSONScanner) throws -> CardLocation {
    var longitude: Double?
    var latitude: Double?
    var source = CardLocation.Source.manual
    try scanner.object { scanner, name in
      switch name {
      case "lon": longitude = try coordinate(&scanner, maximum: FieldRules.maximumLongitude)
      case "lat": latitude = try coordinate(&scanner, maximum: FieldRules.maximumLatitude)
      case "source":
        guard let named = CardLocation.Source(rawValue: try scanner.string()) else { throw Other() }
        source = named
      default: throw Other()
      }
    }
    guard let longitude, let latitude else { throw Other() }
    return CardLocation(longitude: longitude, latitude: latitude, source: source)
  }

  private static func coordinate(_ scanner: inout JSONScanner, maximum: Double) throws -> Double {
    let degrees = try scanner.number()
    guard (-maximum...maximum).contains(degrees) else { throw Other() }
    return degrees
  }

  private static func webLinks(_ scanner: inout JSONScanner) throws -> [CardWebLink] {
    var links: [CardWebLink] = []
    var count = 0
    try scanner.array { scanner in
      count += 1
      guard count <= FieldRules.maximumWebLinks else { throw Other() }
      var link = CardWebLink(url: nil)
      try scanner.object { scanner, name in
        switch name {
        case "url": link.url = try text(&scanner)
        case "displayText": link.displayText = try text(&scanner)
        default: throw Other()
        }
      }
      // A link left wholly empty is no link; a text without its link is an error.
      guard link.url != nil else {
        if link.displayText == nil { return }
        throw Other()
      }
      links.append(link)
    }
    return links
  }

  /// A string as `JSONInput.string` keeps it.
  private static func text(_ scanner: inout JSONScanner) throws -> String? {
    JSONInput.kept(try scanner.string())
  }
}
