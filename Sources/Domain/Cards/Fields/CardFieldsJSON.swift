import Foundation

extension CardFields {
  /// The names of the top-level fields an owner sets, besides `firstName`, `address`,
  /// `location`, `showOnMap` and `webLinks`: each holds a string.
  public static let stringFieldNames = FieldRules.stringFields.map(\.name)

  /// The address's part names: `street`, `city`, `region`, `postcode`, `country`.
  public static let addressPartNames = FieldRules.addressFields.map(\.name)

  /// CARD.CREATE: a JSON object (UTF-8 text) -> validated fields.
  ///
  /// Refused, with the first problem found: input over 32 KiB or not a JSON object (`json`); a
  /// server-set or unknown field (in name order); then each field in declaration order.
  public static func parse(_ json: String, isPro: Bool) throws(CardFieldError) -> CardFields {
    let object = try JSONInput.object(json)
    try JSONInput.checkNames(object)
    let fields = try JSONInput.fields(object)
    try fields.checkPro(isPro: isPro, before: nil)
    // json() writes what the input held (strings no longer, keys once) plus at most the fields
    // it always writes and two coordinates in full: an input this far under the limit needs no
    // serializing to check.
    if json.utf8.count + 512 > FieldRules.maximumInputBytes { try fields.checkSize() }
    return fields
  }

  /// A card's fields as the store holds them (`json()`'s text), read without the rules for
  /// what an owner may write: those were checked when the fields were written, and a rule
  /// made stricter since (a length, a refused host) must not keep a card, or the daemon, from
  /// loading.
  public static func stored(_ json: String) throws(CardFieldError) -> CardFields {
    if let fields = StoredJSON.fields(json) { return fields }
    return try JSONInput.fields(JSONInput.object(json), checking: false)
  }

  /// A JSON object's fields as already read into Swift values (`String`, `Bool`, `Double`,
  /// `NSNumber`, `NSNull`, arrays and dictionaries), checked as `parse` checks them but with
  /// Pro allowed: what `cardatlas import` reads from a row without writing and reading JSON.
  /// `parse(json, isPro:readAs:)` finishes the checks once the owner is known.
  public static func read(object: [String: Any]) throws(CardFieldError) -> CardFields {
    try JSONInput.checkNames(object)
    return try JSONInput.fields(object)
  }

  /// `parse(json, isPro:)`, given `read`'s result for the same object (nil: none), which saves
  /// reading the JSON again.
  public static func parse(_ json: String, isPro: Bool, readAs read: CardFields?)
    throws(CardFieldError) -> CardFields
  {
    guard let fields = read else { return try parse(json, isPro: isPro) }
    try fields.checkPro(isPro: isPro, before: nil)
    if json.utf8.count + 512 > FieldRules.maximumInputBytes { try fields.checkSize() }
    return fields
  }

  /// CARD.UPDATE: applies an RFC 7396 JSON merge patch (null removes a field; objects merge
  /// recursively; arrays replace) to these fields and validates the whole result. A location
  /// is one point: a patch's replaces the card's whole, its source too, never one coordinate
  /// (which would keep a geocoded source for a point moved by hand, and make the same patch
  /// valid or not by whether the card had a location).
  ///
  /// The patch must be an object, and names no server-set or unknown field (even to remove it).
  /// Without Pro, a patch may keep or remove the `cv` fields a card already has (so an owner
  /// whose Pro ended can still edit the card) but not give them new values.
  public func merging(_ patch: String, isPro: Bool) throws(CardFieldError) -> CardFields {
    let changes = try JSONInput.object(patch)
    try JSONInput.checkNames(changes)
    var target = jsonObject()
    if changes["location"] != nil { target["location"] = nil }
    let merged = JSONInput.mergePatch(target, changes) as? [String: Any] ?? [:]
    let fields = try JSONInput.fields(merged)
    try fields.checkPro(isPro: isPro, before: self)
    try fields.checkSize()
    return fields
  }

  /// The fields as a JSON object text (sorted keys, nil fields omitted, showOnMap and webLinks always present) -- for replies and for storage; parse(json(), isPro: true) == self.
  public func json() -> String { jsonText().text }

  /// `jsonObject()` as JSON text to write, to which a reply may add its own members.
  public func jsonText() -> JSONText {
    var object = JSONText()
    object.add("firstName", firstName)
    object.add("showOnMap", showOnMap)
    object.add(
      "webLinks",
      array: webLinks.map { link in
        var item = JSONText()
        item.add("url", link.url)
        item.add("displayText", link.displayText)
        return item
      })
    for field in FieldRules.stringFields {
      object.add(field.name, self[field])
    }
    if let address, !address.isEmpty {
      var item = JSONText()
      for part in FieldRules.addressFields { item.add(part.name, address[keyPath: part.path]) }
      object.add("address", object: item)
    }
    if let location, location.longitude.isFinite, location.latitude.isFinite {
      var item = JSONText()
      item.add("lon", number: location.longitude)
      item.add("lat", number: location.latitude)
      item.add("source", location.source.rawValue)
      object.add("location", object: item)
    }
    return object
  }

  /// The fields as a JSON-compatible dictionary, for embedding in a larger reply object.
  ///
  /// Values are `String`, `Bool`, `Double`, `[String: Any]` and `[[String: Any]]`. A location
  /// with a non-finite coordinate, which JSON cannot hold and `parse` never makes, is left out,
  /// as is an address with no parts.
  public func jsonObject() -> [String: Any] {
    var object: [String: Any] = [
      "firstName": firstName,
      "showOnMap": showOnMap,
      "webLinks": webLinks.map { link in
        var item: [String: Any] = [:]
        item["url"] = link.url
        item["displayText"] = link.displayText
        return item
      },
    ]
    for field in FieldRules.stringFields {
      if let value = self[field] { object[field.name] = value }
    }
    if let address, !address.isEmpty {
      var item: [String: Any] = [:]
      for part in FieldRules.addressFields {
        if let value = address[keyPath: part.path] { item[part.name] = value }
      }
      object["address"] = item
    }
    if let location, location.longitude.isFinite, location.latitude.isFinite {
      object["location"] = [
        "lon": location.longitude, "lat": location.latitude, "source": location.source.rawValue,
      ]
    }
    return object
  }

  /// Refuses `cv` fields without Pro: any on a new card (`before == nil`), and new values on an
  /// existing one.
  fileprivate func checkPro(isPro: Bool, before: CardFields?) throws(CardFieldError) {
    guard !isPro else { return }
    for field in FieldRules.stringFields where field.proOnly {
      if let value = self[field], value != before?[field] {
        throw CardFieldError(field: field.name, reason: "Pro only")
      }
    }
  }

  /// Refuses fields whose JSON is longer than an input may be, so that every card `parse` or
  /// `merging` returns can be parsed again from its `json()`.
  fileprivate func checkSize() throws(CardFieldError) {
    if json().utf8.count > FieldRules.maximumInputBytes {
      throw CardFieldError(
        field: "json", reason: "longer than \(FieldRules.maximumInputBytes) bytes")
    }
  }
}

/// Reading `JSONSerialization`'s output: strings, `NSNumber` (booleans among them), `NSNull`,
/// arrays and dictionaries. A merged object also holds `jsonObject()`'s Swift `Bool`s and
/// `Double`s.
enum JSONInput {
  static func object(_ text: String) throws(CardFieldError) -> [String: Any] {
    let bytes = text.utf8.count
    guard bytes <= FieldRules.maximumInputBytes else {
      throw CardFieldError(
        field: "json", reason: "longer than \(FieldRules.maximumInputBytes) bytes")
    }
    let value: Any
    do {
      value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    } catch {
      throw CardFieldError(field: "json", reason: "not valid JSON")
    }
    guard let object = value as? [String: Any] else {
      throw CardFieldError(field: "json", reason: "not a JSON object")
    }
    return object
  }

  /// Refuses server-set and unknown names, at the top and in `address` and `location` objects;
  /// `webLinks`' items are checked as they are read. In name order, so the error is stable.
  static func checkNames(_ object: [String: Any]) throws(CardFieldError) {
    for name in object.keys.sorted() {
      if FieldRules.serverSet.contains(name) {
        throw CardFieldError(field: name, reason: "set by the server")
      }
      guard FieldRules.topLevelFields.contains(name) else {
        throw CardFieldError(field: shown(name), reason: "unknown field")
      }
    }
    if let address = object["address"] as? [String: Any] {
      try checkNames(address, known: FieldRules.addressFieldNames, in: "address")
    }
    if let location = object["location"] as? [String: Any] {
      try checkNames(location, known: FieldRules.locationFields, in: "location")
    }
  }

  static func checkNames(_ object: [String: Any], known: Set<String>, in path: String)
    throws(CardFieldError)
  {
    for name in object.keys.sorted() where !known.contains(name) {
      throw CardFieldError(field: "\(path).\(shown(name))", reason: "unknown field")
    }
  }

  /// An unknown name as an error shows it: one line, at most 64 characters.
  static func shown(_ name: String) -> String {
    let line = String(
      String.UnicodeScalarView(
        name.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    return line.count <= 64 ? line : line.prefix(64) + "..."
  }

  /// RFC 7396's MergePatch: a patch that is not an object replaces the target; an object's
  /// members merge into the target's (which becomes an object if it was not), null removing one.
  static func mergePatch(_ target: Any?, _ patch: Any) -> Any {
    guard let patch = patch as? [String: Any] else { return patch }
    var result = target as? [String: Any] ?? [:]
    for (name, value) in patch {
      if isNull(value) {
        result[name] = nil
      } else {
        result[name] = mergePatch(result[name], value)
      }
    }
    return result
  }

  /// The fields of a JSON object whose names have been checked; `checking` false takes each
  /// value as it is (`CardFields.stored`).
  static func fields(_ object: [String: Any], checking: Bool = true) throws(CardFieldError)
    -> CardFields
  {
    func checked(_ value: String, _ kind: FieldRules.Kind, _ field: String)
      throws(CardFieldError) -> String
    {
      checking ? try JSONInput.checked(value, kind, field) : value
    }
    guard let rawFirstName = try string(object["firstName"], "firstName") else {
      throw CardFieldError(field: "firstName", reason: "required")
    }
    let firstName = try checked(rawFirstName, FieldRules.firstName, "firstName")
    var fields = CardFields(firstName: firstName)
    // Only the fields the object has (a card sets a few of the thirty), in the rules' order,
    // so that an error names the same field whatever the object's order.
    for index in object.keys.compactMap({ FieldRules.stringFieldIndex[$0] }).sorted() {
      let field = FieldRules.stringFields[index]
      if let value = try string(object[field.name], field.name) {
        fields[field] = try checked(value, field.kind, field.name)
      }
    }
    fields.address = try address(object["address"], checking: checking)
    fields.location = try location(object["location"])
    if let showOnMap = try boolean(object["showOnMap"], "showOnMap") {
      fields.showOnMap = showOnMap
    }
    fields.webLinks = try webLinks(object["webLinks"], checking: checking)
    return fields
  }

  static func address(_ value: Any?, checking: Bool) throws(CardFieldError) -> CardAddress? {
    guard let object = try self.object(value, "address") else { return nil }
    try checkNames(object, known: FieldRules.addressFieldNames, in: "address")
    var address = CardAddress()
    for part in FieldRules.addressFields {
      let name = "address.\(part.name)"
      if let text = try string(object[part.name], name) {
        address[keyPath: part.path] = checking ? try checked(text, part.kind, name) : text
      }
    }
    return address.isEmpty ? nil : address
  }

  static func location(_ value: Any?) throws(CardFieldError) -> CardLocation? {
    guard let object = try self.object(value, "location") else { return nil }
    try checkNames(object, known: FieldRules.locationFields, in: "location")
    let longitude = try coordinate(
      object["lon"], "location.lon", maximum: FieldRules.maximumLongitude)
    let latitude = try coordinate(
      object["lat"], "location.lat", maximum: FieldRules.maximumLatitude)
    var source = CardLocation.Source.manual
    if let name = try string(object["source"], "location.source") {
      guard let named = CardLocation.Source(rawValue: name) else {
        throw CardFieldError(field: "location.source", reason: "must be gps, geocoded or manual")
      }
      source = named
    }
    return CardLocation(longitude: longitude, latitude: latitude, source: source)
  }

  static func coordinate(_ value: Any?, _ field: String, maximum: Double) throws(CardFieldError)
    -> Double
  {
    guard let value, !isNull(value) else {
      throw CardFieldError(field: field, reason: "required")
    }
    guard let degrees = number(value) else {
      throw CardFieldError(field: field, reason: "must be a number")
    }
    guard degrees.isFinite, (-maximum...maximum).contains(degrees) else {
      throw CardFieldError(field: field, reason: "must be between \(-maximum) and \(maximum)")
    }
    return degrees
  }

  static func webLinks(_ value: Any?, checking: Bool) throws(CardFieldError) -> [CardWebLink] {
    guard let value, !isNull(value) else { return [] }
    guard let items = value as? [Any] else {
      throw CardFieldError(field: "webLinks", reason: "must be an array")
    }
    guard items.count <= FieldRules.maximumWebLinks else {
      throw CardFieldError(
        field: "webLinks", reason: "at most \(FieldRules.maximumWebLinks) links")
    }
    var links: [CardWebLink] = []
    for (index, item) in items.enumerated() {
      let path = "webLinks[\(index)]"
      guard let object = item as? [String: Any] else {
        throw CardFieldError(field: path, reason: "must be an object")
      }
      try checkNames(object, known: FieldRules.webLinkFields, in: path)
      let url = try string(object["url"], "\(path).url")
      var displayText = try string(object["displayText"], "\(path).displayText")
      // A link left wholly empty (a blank row of a form) is no link.
      guard let url else {
        if displayText == nil { continue }
        throw CardFieldError(field: "\(path).url", reason: "required")
      }
      let kept = checking ? try checked(url, .url, "\(path).url") : url
      if checking, let text = displayText {
        displayText = try checked(text, FieldRules.webLinkText, "\(path).displayText")
      }
      links.append(CardWebLink(url: kept, displayText: displayText))
    }
    return links
  }

  // MARK: Values

  /// A string, trimmed of surrounding whitespace; nil if absent, null or left empty.
  static func string(_ value: Any?, _ field: String) throws(CardFieldError) -> String? {
    guard let value, !isNull(value) else { return nil }
    guard let text = value as? String else {
      throw CardFieldError(field: field, reason: "must be a string")
    }
    return kept(text)
  }

  /// `text` trimmed of surrounding whitespace; nil if that leaves it empty.
  static func kept(_ text: String) -> String? {
    let trimmed = text.trimmed(.whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
  }

  static func checked(_ value: String, _ kind: FieldRules.Kind, _ field: String)
    throws(CardFieldError) -> String
  {
    switch FieldRules.check(value, kind) {
    case .success(let kept): return kept
    case .failure(let reason): throw CardFieldError(field: field, reason: reason.text)
    }
  }

  /// An object; nil if absent or null.
  static func object(_ value: Any?, _ field: String) throws(CardFieldError) -> [String: Any]? {
    guard let value, !isNull(value) else { return nil }
    guard let object = value as? [String: Any] else {
      throw CardFieldError(field: field, reason: "must be an object")
    }
    return object
  }

  /// A boolean; nil if absent or null. Not a number: `1` is refused.
  static func boolean(_ value: Any?, _ field: String) throws(CardFieldError) -> Bool? {
    guard let value, !isNull(value) else { return nil }
    if type(of: value) == Bool.self, let flag = value as? Bool { return flag }
    if let number = value as? NSNumber, isBoolean(number) { return number.boolValue }
    throw CardFieldError(field: field, reason: "must be true or false")
  }

  /// A number; nil for anything else, booleans included.
  static func number(_ value: Any) -> Double? {
    if type(of: value) == Bool.self { return nil }
    if let number = value as? Double, type(of: value) == Double.self { return number }
    if let number = value as? NSNumber, !isBoolean(number) { return number.doubleValue }
    return nil
  }

  /// JSON's null (`NSNull`). Not `value is NSNull`: on Linux that bridges a Swift value (a
  /// whole dictionary) to an object to ask, which was a tenth of an import's field reading.
  static func isNull(_ value: Any) -> Bool {
    ObjectIdentifier(type(of: value)) == ObjectIdentifier(NSNull.self)
  }

  /// JSON's `true` and `false` come as `NSNumber`s of a class of their own (CFBoolean's
  /// `__NSCFBoolean`, on Linux as on Darwin), which also say `is Bool` -- as does `1`.
  static func isBoolean(_ number: NSNumber) -> Bool {
    ObjectIdentifier(type(of: number)) == booleanClass
  }

  private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))
}
