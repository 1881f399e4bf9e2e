import Cards
import ErrorLines
import Foundation
import Gazetteer
import Geocoding

/// The columns an import understands: the card's field names (flat), `externalId`,
/// `ownerEmail`, the address as parts or as one `address` text, and `lon`/`lat`.
public struct Columns: Sendable {
  static let required = ["externalId", "ownerEmail"]
  static let special: Set<String> = ["externalId", "ownerEmail", "address", "lon", "lat"]
  static let fields: Set<String> = Set(CardFields.stringFieldNames).union([
    "firstName", "showOnMap", "webLinks",
  ])
  static let parts = Set(CardFields.addressPartNames)
  public static let known = special.union(fields).union(parts)

  /// Refuses a header before anything is read past it: unknown or repeated names, a missing
  /// required column, `address` with parts, `lon` without `lat`.
  public static func check(_ names: [String]) throws(ImportError) {
    let unknown = names.filter { !known.contains($0) }
    if !unknown.isEmpty { throw .unknownColumns(unknown) }
    let repeated = Dictionary(grouping: names, by: { $0 }).filter { $1.count > 1 }.keys
    if !repeated.isEmpty {
      throw .badColumns("repeated column \(repeated.sorted().joined(separator: ", "))")
    }
    let missing = required.filter { !names.contains($0) }
    if !missing.isEmpty { throw .badColumns("missing column \(missing.joined(separator: ", "))") }
    if names.contains("address"), names.contains(where: parts.contains) {
      throw .badColumns("give the address as one address column or as parts, not both")
    }
    if names.contains("lon") != names.contains("lat") {
      throw .badColumns("lon and lat go together")
    }
  }
}

/// One input row read into what the card, the owner and the geocoder need.
struct ImportRecord {
  let row: Int
  var externalId = ""
  var ownerEmail = ""
  /// The card's JSON object, without its location until one is known.
  var object: [String: Any] = [:]
  /// What to geocode, when the row has an address and no lon/lat.
  var query: GeocodeQuery?
  var hasShowOnMap = false
  /// Why the row cannot be imported, found before any geocoding or writing.
  var problem: String?
  /// Why its address is not geocoded though it has one (the card is written without a
  /// location): a country that names none.
  var notFound: String?

  /// Reads a row's cells (strings from CSV; any JSON value from JSON Lines). Empty strings and
  /// nulls are absent values.
  init(row: Int, cells: [String: Any], countries: CountryNames) {
    self.row = row
    var address: [String: Any] = [:]
    var freeText: String?
    var lon: Double?
    var lat: Double?
    do throws(RowProblem) {
      for (name, raw) in cells {
        guard let value = Self.present(raw) else { continue }
        switch name {
        case "externalId": externalId = Self.text(value)
        case "ownerEmail": ownerEmail = Self.text(value)
        case "lon": lon = try Self.degrees(value, name)
        case "lat": lat = try Self.degrees(value, name)
        case "address":
          // JSON Lines may give the address as an object of parts.
          guard let parts = value as? [String: Any] else {
            freeText = Self.text(value)
            continue
          }
          for (part, text) in parts {
            guard Columns.parts.contains(part) else {
              throw RowProblem("address.\(part): unknown part")
            }
            address[part] = text
          }
        case "showOnMap":
          object[name] = try Self.boolean(value)
          hasShowOnMap = true
        case "webLinks": object[name] = try Self.links(value)
        case _ where Columns.parts.contains(name): address[name] = value
        default: object[name] = value
        }
      }
      guard !externalId.isEmpty else { throw RowProblem("externalId: required") }
      guard !ownerEmail.isEmpty else { throw RowProblem("ownerEmail: required") }
      if let freeText { address["street"] = freeText }
      if !address.isEmpty { object["address"] = address }
      switch (lon, lat) {
      case (let lon?, let lat?): locate(lon: lon, lat: lat, source: "manual")
      case (nil, nil):
        if let freeText {
          query = GeocodeQuery(freeText, limit: 1)
        } else if !address.isEmpty {
          (query, notFound) = Self.structured(address, countries)
        }
      default: throw RowProblem("lon and lat: give both or neither")
      }
    } catch {
      problem = error.message
    }
  }

  /// Sets the location; the card goes on the map unless the row said otherwise.
  mutating func locate(lon: Double, lat: Double, source: String) {
    object["location"] = ["lon": lon, "lat": lat, "source": source]
    if !hasShowOnMap { object["showOnMap"] = true }
  }

  /// The card's JSON text, as CARD.CREATE takes it.
  func json() -> String {
    if let text = Self.written(object) { return text }
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]))
      ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  /// A value as JSON text, for what a CSV row holds (strings, the Bool and Doubles set here,
  /// objects and arrays of them): JSONSerialization cost more than all the rest of a row's
  /// reading. Nil for anything else (JSON Lines' numbers), which goes through JSONSerialization.
  private static func written(_ value: Any) -> String? {
    switch value {
    case let text as String: return JSONText.quoted(text)
    case let flag as Bool where type(of: value) == Bool.self: return flag ? "true" : "false"
    case let number as Double where type(of: value) == Double.self && number.isFinite:
      return "\(number)"
    case let object as [String: Any]:
      var members: [String] = []
      for (key, member) in object {
        guard let text = written(member) else { return nil }
        members.append(JSONText.quoted(key) + ":" + text)
      }
      return "{" + members.joined(separator: ",") + "}"
    case let array as [Any]:
      var items: [String] = []
      for item in array {
        guard let text = written(item) else { return nil }
        items.append(text)
      }
      return "[" + items.joined(separator: ",") + "]"
    default: return nil
    }
  }

  /// Street, city and postcode for a structured search, only in the country the row names by
  /// code or by name ("PK", "Pakistan", "Deutschland", "UK": `CountryNames`), as a free-text
  /// search reads "Hyderabad, Pakistan". A country that names none is never dropped, which
  /// would let a namesake elsewhere win: the address is not geocoded, and the row says why.
  private static func structured(_ address: [String: Any], _ countries: CountryNames)
    -> (GeocodeQuery?, notFound: String?)
  {
    let part = { (name: String) in (address[name]).map(Self.text) }
    guard part("street") != nil || part("city") != nil || part("postcode") != nil else {
      return (nil, nil)
    }
    var code: String?
    if let country = part("country") {
      guard let found = countries.code(for: country) else {
        return (nil, "no country is called \"\(country)\"; imported without a location")
      }
      code = found
    }
    let query = GeocodeQuery(
      countryCode: code, region: part("region"), limit: 1, street: part("street"),
      city: part("city"), postcode: part("postcode"))
    return (query, nil)
  }

  private static func present(_ value: Any) -> Any? {
    if let text = value as? String {
      // Most cells have nothing to trim: Foundation's trimming is not asked.
      guard text.first?.isWhitespace == true || text.last?.isWhitespace == true else {
        return text.isEmpty ? nil : text
      }
      let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
      return trimmed.isEmpty ? nil : trimmed
    }
    // Asked after the String: `is NSNull` bridges a Swift value to an object on Linux.
    return value is NSNull ? nil : value
  }

  private static func text(_ value: Any) -> String {
    (value as? String) ?? "\(value)"
  }

  private static func degrees(_ value: Any, _ name: String) throws(RowProblem) -> Double {
    if let text = value as? String, let number = Double(text), number.isFinite { return number }
    if let number = value as? NSNumber, !(value is String) { return number.doubleValue }
    throw RowProblem("\(name): must be a number")
  }

  private static func boolean(_ value: Any) throws(RowProblem) -> Bool {
    if let flag = value as? Bool { return flag }
    switch (value as? String)?.lowercased() {
    case "true", "yes", "1": return true
    case "false", "no", "0": return false
    default: throw RowProblem("showOnMap: must be true or false")
    }
  }

  /// `webLinks`: a JSON array (in a CSV cell, as JSON text).
  private static func links(_ value: Any) throws(RowProblem) -> Any {
    guard let text = value as? String else { return value }
    guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
      throw RowProblem("webLinks: not valid JSON (a JSON array of {url, displayText})")
    }
    return parsed
  }
}

struct RowProblem: Error {
  let message: String
  init(_ message: String) { self.message = message }
}
