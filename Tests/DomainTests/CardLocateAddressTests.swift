import DaemonTestSupport
import Foundation
import Gazetteer
import Geodesy
import RESP
import RedisTestSupport
import Testing

/// CARD.LOCATE <id> ADDRESS through the protocol, geocoded by the offline gazetteer (the
/// server's default).
@Suite("CardLocateAddress")
struct CardLocateAddressTests {
  static let gazetteer = Result { try Gazetteer() }

  /// Metres between a card's location and a point.
  static func distance(_ card: [String: Any], _ lon: Double, _ lat: Double) -> Double {
    let location = card["location"] as? [String: Any] ?? [:]
    return Sphere.earth.distance(
      Coordinate(
        longitude: location["lon"] as? Double ?? 0, latitude: location["lat"] as? Double ?? 0),
      Coordinate(longitude: lon, latitude: lat))
  }

  @Test(
    "the card's address is geocoded and the card goes where it names, on the map, source geocoded; no address, no match and another's card are refused and change nothing"
  )
  func locatesByAddress() async throws {
    let gazetteer = try Self.gazetteer.get()
    let server = try await TestDaemon(cards: { $0.geocoder = gazetteer })
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    _ = try server.connect().object("ACCOUNT.PRO", "1", "1")
    func create(_ address: String) throws -> String {
      let card = try ana.object(
        "CARD.CREATE", #"{"firstName":"Ana","showOnMap":true,"address":"# + address + "}")
      return "\(card["id"] as? Int ?? 0)"
    }
    let vaduz = try create(#"{"street":"Städtle 1","city":"Vaduz","country":"LI"}"#)
    let located = try ana.object("CARD.LOCATE", vaduz, "ADDRESS")
    #expect(Self.distance(located, 9.52, 47.14) < 5_000)
    #expect((located["location"] as? [String: Any])?["source"] as? String == "geocoded")
    let found = try bo.command(
      "CARD.SEARCH", "FROMLONLAT", "9.52", "47.14", "BYRADIUS", "5", "km"
    ).value
    #expect(found.arrayCount == 1, "on the map where the address is")

    // The region decides between Paris, France and Paris, Texas.
    let texas = try create(#"{"city":"Paris","region":"TX","country":"US"}"#)
    #expect(Self.distance(try ana.object("CARD.LOCATE", texas, "address"), -95.55, 33.66) < 5_000)

    let none = try create("null")
    #expect(
      try ana.text("CARD.LOCATE", none, "ADDRESS") == "INVALID address: the card has no address")
    let nowhere = try create(#"{"city":"Xqzvbnmkwp"}"#)
    #expect(
      try ana.text("CARD.LOCATE", nowhere, "ADDRESS")
        == "NOTFOUND no place matches the card's address")
    #expect(try bo.text("CARD.LOCATE", vaduz, "ADDRESS").hasPrefix("NOPERM"))
    #expect(try ana.text("CARD.LOCATE", "999", "ADDRESS").hasPrefix("NOTFOUND no such card"))
    #expect(try ana.text("CARD.LOCATE", vaduz, "1", "2", "3").hasPrefix("ERR syntax"))
    #expect(try ana.text("CARD.LOCATE", vaduz).hasPrefix("ERR wrong number of arguments"))
    for id in [none, nowhere] {
      #expect(try ana.object("CARD.GET", id)["location"] == nil, "nothing stored")
    }
    await server.stop()
  }

  @Test("without a geocoder, CARD.LOCATE ADDRESS says none is configured")
  func withoutGeocoder() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let card = try ana.object("CARD.CREATE", #"{"firstName":"Ana","address":{"city":"Vaduz"}}"#)
    #expect(
      try ana.text("CARD.LOCATE", "\(card["id"] as? Int ?? 0)", "ADDRESS")
        == "ERR geocoding failed: no geocoder is configured")
    await server.stop()
  }
}
