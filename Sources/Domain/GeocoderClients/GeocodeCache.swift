import Foundation
import Geocoding

/// Geocoders' answers kept in a store (`GeocodeCacheStorage`), by provider and normalized request: a forward query by its
/// case- and space-folded text, country, region and limit; a reverse one by its coordinates
/// rounded to `reversePrecision` decimals. Misses are kept too, for a shorter time.
public struct GeocodeCache: Sendable {
  public let storage: any GeocodeCacheStorage
  public var hitLifetime: Duration
  public var missLifetime: Duration
  /// Decimals of degrees a reverse request is rounded to: 5 is about a metre.
  public var reversePrecision: Int
  private let now: @Sendable () -> Date

  public init(
    _ storage: any GeocodeCacheStorage, hitLifetime: Duration = .seconds(30 * 86_400),
    missLifetime: Duration = .seconds(86_400), reversePrecision: Int = 5,
    now: @escaping @Sendable () -> Date = Date.init
  ) {
    self.storage = storage
    self.hitLifetime = hitLifetime
    self.missLifetime = missLifetime
    self.reversePrecision = reversePrecision
    self.now = now
  }

  /// A request as the cache knows it.
  public struct Key: Sendable, Hashable {
    public var provider: String
    /// `search`, `structured` or `reverse`.
    public var kind: String
    public var request: String
  }

  public func key(provider: String, _ query: GeocodeQuery) -> Key {
    if query.isStructured { return key(provider: provider, query.addressParts) }
    let request = [
      "q=" + Self.fold(query.text), "cc=" + (query.countryCode?.uppercased() ?? ""),
      "region=" + Self.fold(query.region ?? ""), "limit=\(query.limit)",
    ].joined(separator: "|")
    return Key(provider: provider, kind: "search", request: request)
  }

  public func key(provider: String, _ address: AddressParts) -> Key {
    let parts = [
      address.street, address.city, address.county, address.region, address.postcode,
      address.country,
    ].map { Self.fold($0 ?? "") }
    return Key(
      provider: provider, kind: "structured",
      request: parts.joined(separator: "|") + "|limit=\(address.limit)")
  }

  public func key(provider: String, lon: Double, lat: Double) -> Key {
    let scale = pow(10, Double(reversePrecision))
    // Rounded first, so that -0.000001 and 0.000001 (and -0 and 0) are one key.
    let spell = { (v: Double) -> String in
      let rounded = (v * scale).rounded() / scale
      return String(format: "%.\(reversePrecision)f", rounded == 0 ? 0 : rounded)
    }
    return Key(provider: provider, kind: "reverse", request: spell(lon) + "," + spell(lat))
  }

  /// The cached answer, or nil when there is none or it has expired.
  public func lookup(_ key: Key) async throws -> [Place]? { try await lookup([key])[0] }

  /// Each key's cached answer, as `lookup(_:)` gives it, in one read: an import asks a chunk's
  /// addresses at once.
  public func lookup(_ keys: [Key]) async throws -> [[Place]?] {
    let time = now().timeIntervalSince1970
    let texts = try await storage.answers(keys, unexpiredAt: time)
    // An unreadable entry (written by a future version) is a miss, overwritten on store.
    return texts.map { $0.flatMap(Place.list(json:)) }
  }

  /// Keeps `places` (empty: a miss, kept for `missLifetime`) for `key`.
  public func store(_ places: [Place], for key: Key) async throws {
    let time = now().timeIntervalSince1970
    let lifetime = (places.isEmpty ? missLifetime : hitLifetime).seconds
    let json = String(decoding: try JSONEncoder().encode(places), as: UTF8.self)
    try await storage.keep(json, for: key, at: time, until: time + lifetime)
  }

  /// Deletes expired entries; returns how many.
  @discardableResult
  public func purgeExpired() async throws -> Int {
    let time = now().timeIntervalSince1970
    return try await storage.purge(expiredAt: time)
  }

  /// Lower case, runs of spaces as one, no space before a comma and one after. One pass over
  /// the characters: Foundation's replacing took a tenth of a warm-cache import's time.
  static func fold(_ text: String) -> String {
    var folded = ""
    folded.reserveCapacity(text.utf8.count)
    var space = false
    for character in text.lowercased() {
      if character.isWhitespace {
        space = true
      } else if character == "," {
        folded.append(",")
        space = true
      } else {
        if space && !folded.isEmpty { folded.append(" ") }
        space = false
        folded.append(character)
      }
    }
    return folded
  }
}
