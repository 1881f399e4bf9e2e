import Geocoding
import Synchronization
import Testing

/// A structured geocoder that knows one address only without its region: it records what it
/// was asked.
private final class RegionlessData: StructuredGeocoder {
  let name = "regionless"
  let asked = Mutex<[AddressParts]>([])

  func search(_ query: GeocodeQuery) async throws -> [Place] { [] }
  func reverse(lon: Double, lat: Double) async throws -> Place? { nil }

  func search(_ address: AddressParts) async throws -> [Place] {
    asked.withLock { $0.append(address) }
    guard address.region == nil, address.postcode == nil, address.street == "420 Harvest Loop"
    else { return [] }
    return [
      Place(
        lon: -86.42, lat: 32.45, label: "420 Harvest Loop, Prattville", confidence: 1,
        provider: name, name: "420 Harvest Loop")
    ]
  }
}

@Suite struct RelaxingGeocoderTests {
  @Test func aMissIsAskedAgainWithoutTheRegionThenThePostcode() async throws {
    let data = RegionlessData()
    let found = try await RelaxingGeocoder(data).search(
      GeocodeQuery(
        countryCode: "US", region: "Alabama", street: "420 Harvest Loop", city: "Prattville",
        postcode: "36066"))
    #expect(found.map(\.label) == ["420 Harvest Loop, Prattville"])
    #expect(abs(found[0].confidence - 0.8) < 1e-9, "two parts dropped")
    #expect(data.asked.withLock { $0.map(\.region) } == ["Alabama", nil, nil])
    #expect(data.asked.withLock { $0.map(\.postcode) } == ["36066", "36066", nil])
  }

  @Test func aMatchIsNotRelaxedAndAHopelessMissStops() async throws {
    let data = RegionlessData()
    let direct = try await RelaxingGeocoder(data).search(
      AddressParts(street: "420 Harvest Loop", city: "Prattville"))
    #expect(direct.first?.confidence == 1)
    #expect(data.asked.withLock { $0.count } == 1)
    let none = try await RelaxingGeocoder(data).search(
      AddressParts(street: "1 Nowhere Road", city: "Prattville", region: "Alabama"))
    #expect(none.isEmpty)
    #expect(data.asked.withLock { $0.count } == 3, "the address, without region; no postcode")
  }
}
