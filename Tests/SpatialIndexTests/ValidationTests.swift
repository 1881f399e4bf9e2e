import Geodesy
import SpatialIndex
import Testing

/// Bad coordinates get a clear error and change nothing.
@Suite struct ValidationTests {
  static let bad: [(Item, ItemError)] = [
    (
      Item(id: 9, longitude: .nan, latitude: 0),
      .coordinate(.notFinite(longitude: .nan, latitude: 0))
    ),
    (
      Item(id: 9, longitude: 180.000001, latitude: 0), .coordinate(.longitudeOutOfRange(180.000001))
    ),
    (Item(id: 9, longitude: 0, latitude: -90.5), .coordinate(.latitudeOutOfRange(-90.5))),
    (
      Item(id: 9, longitude: 0, latitude: .infinity),
      .coordinate(.notFinite(longitude: 0, latitude: .infinity))
    ),
    (Item(id: 9, longitude: 0, latitude: 0, radius: -1), .radius(-1)),
    (Item(id: 9, longitude: 0, latitude: 0, radius: .nan), .radius(.nan)),
  ]

  @Test func upsertRejectsBadItemsAndKeepsTheIndex() throws {
    let good = Item(id: 9, longitude: 2.35, latitude: 48.85)
    let index = try GeoIndex(items: [good])
    for (item, expected) in Self.bad {
      #expect {
        try index.upsert(item)
      } throws: { error in
        // NaN never equals itself: compare the descriptions, which name the bad value.
        "\(error)" == "\(expected)"
      }
      #expect(index.item(id: 9) == good)
      #expect(index.count == 1)
    }
    #expect(ItemError.coordinate(.longitudeOutOfRange(200)).description.contains("longitude 200.0"))
  }

  @Test func bulkBuildRejectsBadItems() {
    for (item, _) in Self.bad {
      #expect(throws: ItemError.self) {
        try GeoIndex(items: [Item(id: 1, longitude: 0, latitude: 0), item])
      }
    }
  }

  @Test func edgesOfTheRangesAreAccepted() throws {
    let edges = [
      Item(id: 0, longitude: -180, latitude: -90), Item(id: 1, longitude: 180, latitude: 90),
      Item(id: 2, longitude: 0, latitude: 0, radius: 0),
    ]
    let index = try GeoIndex(items: edges)
    #expect(index.count == 3)
    #expect(try !index.upsert(Item(id: 2, longitude: -180, latitude: 90)))
  }
}
