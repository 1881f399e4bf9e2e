import DaemonTestSupport
import Foundation
import GeocoderClients
import Geocoding
import RESP
import RedisTestSupport
import Server
import Synchronization
import Testing

/// GEOCODE and GEOCODE.REVERSE over a real server and socket, with a geocoder that answers from
/// a table and counts what it is asked; the store's cache in front of it.
@Suite("GEOCODE commands")
struct GeocodeCommandTests {
  final class Table: Geocoder {
    let name = "table"
    private let counter = Atomic<Int>(0)
    var calls: Int { counter.load(ordering: .relaxed) }

    func search(_ query: GeocodeQuery) async throws -> [Place] {
      counter.add(1, ordering: .relaxed)
      guard query.text.lowercased().hasPrefix("vaduz") else { return [] }
      let all = [Self.vaduz, Self.schaan]
      return Array(
        all.prefix(query.countryCode == nil || query.countryCode == "LI" ? query.limit : 0))
    }

    func reverse(lon: Double, lat: Double) async throws -> Place? {
      counter.add(1, ordering: .relaxed)
      if lon > 9 && lon < 10 { return Self.vaduz }
      if lon == 1 { throw GeocoderServiceError.timeout(host: "table.test") }
      return nil
    }

    static let vaduz = Place(
      lon: 9.52154, lat: 47.14151, label: "Vaduz, Liechtenstein",
      bbox: BoundingBox(minLon: 9.47, minLat: 47.09, maxLon: 9.56, maxLat: 47.18), confidence: 1,
      provider: "table", name: "Vaduz", countryCode: "LI")
    static let schaan = Place(
      lon: 9.50867, lat: 47.16498, label: "Schaan, Liechtenstein", confidence: 0.4,
      provider: "table", name: "Schaan", countryCode: "LI")
  }

  func object(_ value: RESPValue) throws -> [String: Any] {
    guard case .bulkString(let b) = value,
      let object = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
        as? [String: Any]
    else { throw RESPConnection.Failed(description: "not a JSON object: \(value)") }
    return object
  }

  @Test func candidatesBestFirstCachedInTheStore() async throws {
    let table = Table()
    let server = try await TestDaemon(domain: {
      $0.geocoder = { cache in CachingGeocoder(table, cache: cache) }
    })
    do {
      let (c, _, _) = try server.signedIn("geo@example.com")
      guard
        case .array(let candidates) = try c.command(["GEOCODE", "Vaduz", "COUNTRY", "li"]).value
      else { throw RESPConnection.Failed(description: "not an array") }
      let first = try object(candidates[0])
      #expect(candidates.count == 2)
      #expect(first["label"] as? String == "Vaduz, Liechtenstein")
      #expect(first["lon"] as? Double == 9.52154 && first["lat"] as? Double == 47.14151)
      #expect(first["bbox"] as? [Double] == [9.47, 47.09, 9.56, 47.18])
      #expect(first["confidence"] as? Double == 1 && first["provider"] as? String == "table")
      #expect(try object(candidates[1])["bbox"] is NSNull)
      guard case .array(let one) = try c.command(["GEOCODE", "vaduz ", "COUNT", "1"]).value else {
        throw RESPConnection.Failed(description: "not an array")
      }
      #expect(one.count == 1)
      #expect(try c.text("GEOCODE", "Atlantis") == "\(RESPValue.array([]))")
      #expect(
        try object(try c.command(["GEOCODE.REVERSE", "9.5", "47.1"]).value)["name"] as? String
          == "Vaduz")
      #expect(try c.text("GEOCODE.REVERSE", "0", "0") == "\(RESPValue.null)")
      let calls = table.calls
      // Asked again: answered from the store's cache.
      _ = try c.command(["GEOCODE", "VADUZ", "COUNTRY", "LI"])
      _ = try c.command(["GEOCODE.REVERSE", "9.5", "47.1"])
      #expect(table.calls == calls)
    }
    await server.stop()
  }

  @Test func badArgumentsAndFailuresAreClearErrors() async throws {
    let table = Table()
    let server = try await TestDaemon(domain: { $0.geocoder = { _ in table } })
    do {
      let anonymous = try server.connect()
      #expect(try anonymous.text("GEOCODE", "Vaduz").hasPrefix("NOAUTH"))
      let (c, _, _) = try server.signedIn("geo2@example.com")
      #expect(try c.text("GEOCODE", " ") == "ERR the address is empty")
      #expect(
        try c.text("GEOCODE", "Vaduz", "COUNTRY", "LIE").hasPrefix(
          "ERR a country code is two letters"))
      #expect(
        try c.text("GEOCODE", "Vaduz", "COUNT", "0").hasPrefix("ERR the count must be between 1"))
      #expect(
        try c.text("GEOCODE", "Vaduz", "COUNT", "x")
          == "ERR value is not an integer or out of range")
      #expect(try c.text("GEOCODE", "Vaduz", "COUNTRY") == "ERR syntax error")
      #expect(try c.text("GEOCODE", "Vaduz", "NEAR", "x") == "ERR syntax error")
      #expect(try c.text("GEOCODE.REVERSE", "x", "1") == "ERR value is not a valid float")
      #expect(try c.text("GEOCODE.REVERSE", "200", "1").hasPrefix("ERR invalid coordinate"))
      #expect(
        try c.text("GEOCODE.REVERSE", "1", "1")
          == "GEOCODER geocoder table.test did not answer in time")
      #expect(table.calls == 1)
    }
    await server.stop()
  }
}
