import Geocoding
import Testing

@testable import Gazetteer

@Suite("Gazetteer forward search")
struct ForwardTests {
  func best(_ text: String, country: String? = nil, region: String? = nil) throws -> Place? {
    try Shared.gazetteer().lookup(GeocodeQuery(text, countryCode: country, region: region)).first
  }

  @Test func vaduz() throws {
    let place = try #require(try best("Vaduz"))
    #expect(place.ids == ["geonameid": "3042030"])
    #expect(place.label == "Vaduz, Liechtenstein")
    #expect(place.countryCode == "LI")
    #expect(place.provider == "geonames")
    #expect(abs(place.lon - 9.52154) < 1e-9 && abs(place.lat - 47.14151) < 1e-9)
    #expect(place.confidence == 1)
  }

  @Test func prattvilleAlabama() throws {
    let place = try #require(try best("Prattville, Alabama"))
    #expect(place.label == "Prattville, Alabama, United States")
    #expect(place.region == "Alabama" && place.countryCode == "US")
    #expect(metres(place.lon, place.lat, -86.4597, 32.46402) < 100)
  }

  @Test("Paris, TX is Texas's Paris; Paris alone is France's")
  func paris() throws {
    let texas = try #require(try best("Paris, TX"))
    #expect(texas.region == "Texas" && texas.countryCode == "US")
    #expect(texas.confidence > 0.9)
    #expect(try best("Paris Texas")?.ids == texas.ids)
    #expect(try best("paris, texas, usa")?.ids == texas.ids)
    let france = try #require(try best("Paris"))
    #expect(france.countryCode == "FR" && france.ids == ["geonameid": "2988507"])
    #expect(france.confidence > 0.9 && france.confidence < 1, "other Parises make it ambiguous")
    #expect(try best("Paris, France")?.ids == france.ids)
    #expect(try best("Paris", country: "us")?.region == "Texas")
    #expect(try best("Paris", country: "US", region: "Kentucky")?.region == "Kentucky")
    #expect(try best("Paris, Kentucky")?.region == "Kentucky")
  }

  @Test(
    "Case and accents fold",
    arguments: [
      ("Zurich", "2657896"), ("ZÜRICH", "2657896"), ("zürich", "2657896"),
      ("sao paulo", "3448439"), ("SÃO PAULO", "3448439"), ("Saint-Etienne", "2980291"),
      ("saint étienne", "2980291"), ("Koln", "2886242"), ("Cologne", "2886242"),
      ("Москва", "524901"), ("東京", "1850147"), ("Göteborg", "2711537"),
      ("Gothenburg", "2711537"), ("Malmo", "2692969"),
    ])
  func folding(_ text: String, _ geonameid: String) throws {
    #expect(try best(text)?.ids["geonameid"] == geonameid)
  }

  @Test("Street, postcode and unknown parts are passed over, with lower confidence")
  func addresses() throws {
    let place = try #require(try best("Städtle 1, 9490 Vaduz, Liechtenstein"))
    #expect(place.ids == ["geonameid": "3042030"])
    #expect(place.confidence < 1)
    #expect(
      try best("1 Main Street, Prattville, AL 36067")?.label
        == "Prattville, Alabama, United States")
  }

  @Test("Structured queries: the city, qualified by region and country; the street passed over")
  func structured() throws {
    let g = try Shared.gazetteer()
    let prattville = try #require(
      try g.lookup(GeocodeQuery(region: "AL", street: "1 Main St", city: "Prattville")).first)
    #expect(prattville.label == "Prattville, Alabama, United States")
    #expect(prattville.confidence == 0.8)
    let vaduz = try #require(
      try g.lookup(GeocodeQuery(countryCode: "LI", city: "Vaduz", postcode: "9490")).first)
    #expect(vaduz.ids == ["geonameid": "3042030"] && vaduz.confidence == 1)
    #expect(try g.lookup(GeocodeQuery(region: "Texas", city: "Paris")).first?.region == "Texas")
    #expect(try g.lookup(GeocodeQuery(street: "Städtle 1", postcode: "9490")).isEmpty)
    #expect(throws: GeocodeError.mixedQuery) {
      try g.lookup(GeocodeQuery("Vaduz", city: "Vaduz"))
    }
    #expect(throws: GeocodeError.emptyQuery) {
      try g.lookup(GeocodeQuery(street: " ", city: "", postcode: "\t"))
    }
    let long = String(repeating: "x", count: 1_001)
    #expect(throws: GeocodeError.queryTooLong(bytes: 1_001, maximum: 1_000)) {
      try g.lookup(GeocodeQuery(city: long))
    }
  }

  @Test("A qualifier that matches nothing there gives no result, not another country's place")
  func qualifierRestricts() throws {
    let g = try Shared.gazetteer()
    #expect(try g.lookup(GeocodeQuery("Vaduz, Texas")).isEmpty)
    #expect(try g.lookup(GeocodeQuery("Vaduz", countryCode: "US")).isEmpty)
    #expect(try g.lookup(GeocodeQuery("Qwxzv Nowhere")).isEmpty)
  }

  @Test("Ranking: populous first, confidences ordered and within 0...1, limit honoured")
  func ranking() throws {
    let found = try Shared.gazetteer().lookup(GeocodeQuery("Springfield", limit: 10))
    #expect(found.count == 10)
    #expect(found.allSatisfy { $0.countryCode == "US" || $0.countryCode == "AU" })
    #expect(found.first?.region == "Missouri", "the most populous Springfield")
    #expect(found.first!.confidence < 0.5, "several Springfields are alike in size")
    let confidences = found.map(\.confidence)
    #expect(confidences == confidences.sorted(by: >))
    #expect(confidences.allSatisfy { (0...1).contains($0) })
  }

  @Test func badInput() throws {
    let g = try Shared.gazetteer()
    #expect(throws: GeocodeError.emptyQuery) { try g.lookup(GeocodeQuery("")) }
    #expect(throws: GeocodeError.emptyQuery) { try g.lookup(GeocodeQuery(" \t\n ")) }
    let huge = String(repeating: "Vaduz ", count: 100_000)
    #expect(throws: GeocodeError.queryTooLong(bytes: huge.utf8.count - 1, maximum: 1_000)) {
      try g.lookup(GeocodeQuery(huge))
    }
    #expect(throws: GeocodeError.badLimit(0, maximum: 50)) {
      try g.lookup(GeocodeQuery("Vaduz", limit: 0))
    }
    #expect(throws: GeocodeError.badLimit(51, maximum: 50)) {
      try g.lookup(GeocodeQuery("Vaduz", limit: 51))
    }
    #expect(throws: GeocodeError.badCountryCode("L1")) {
      try g.lookup(GeocodeQuery("Vaduz", countryCode: "L1"))
    }
    #expect(throws: GeocodeError.unknownCountryCode("XX")) {
      try g.lookup(GeocodeQuery("Vaduz", countryCode: "xx"))
    }
    #expect(throws: GeocodeError.badRegion("")) {
      try g.lookup(GeocodeQuery("Vaduz", region: "  "))
    }
    // Punctuation alone folds to nothing: no match, no error.
    #expect(try g.lookup(GeocodeQuery(",,, ;")).isEmpty)
  }

  @Test("The protocol's async search gives what lookup gives")
  func throughProtocol() async throws {
    let geocoder: any Geocoder = try Shared.gazetteer()
    let places = try await geocoder.search(GeocodeQuery("Paris, TX"))
    #expect(places.first?.region == "Texas")
    await #expect(throws: GeocodeError.emptyQuery) { try await geocoder.search(GeocodeQuery("")) }
  }
}
