import Geodesy
import Testing

@Suite struct TileTests {
  typealias Tile = WebMercator.Tile

  @Test func knownTiles() {
    #expect(WebMercator.tile(longitude: 12, latitude: 34, zoom: 0) == Tile(x: 0, y: 0, zoom: 0))
    #expect(WebMercator.tile(longitude: 0, latitude: 0, zoom: 1) == Tile(x: 1, y: 1, zoom: 1))
    #expect(
      WebMercator.tile(longitude: -0.001, latitude: 0.001, zoom: 1) == Tile(x: 0, y: 0, zoom: 1))
    // London 10/511/340, Berlin 12/2200/1343, San Francisco 15/5241/12665 (OSM slippy-map formula).
    #expect(
      WebMercator.tile(longitude: -0.1278, latitude: 51.5074, zoom: 10)
        == Tile(x: 511, y: 340, zoom: 10))
    #expect(
      WebMercator.tile(longitude: 13.405, latitude: 52.52, zoom: 12)
        == Tile(x: 2200, y: 1343, zoom: 12))
    #expect(
      WebMercator.tile(longitude: -122.4194, latitude: 37.7749, zoom: 15)
        == Tile(x: 5241, y: 12665, zoom: 15))
  }

  @Test func edgesStayOnTheMap() {
    let last = (1 << 22) - 1
    #expect(
      WebMercator.tile(longitude: 180, latitude: -90, zoom: 22) == Tile(x: last, y: last, zoom: 22))
    #expect(WebMercator.tile(longitude: -180, latitude: 90, zoom: 22) == Tile(x: 0, y: 0, zoom: 22))
  }

  @Test func boundsOfKnownTiles() {
    let world = Tile(x: 0, y: 0, zoom: 0).bounds
    #expect(world.minLongitude == -180 && world.maxLongitude == 180)
    #expect(abs(world.maxLatitude - WebMercator.maximumLatitude) < 1e-12)
    #expect(abs(world.minLatitude + WebMercator.maximumLatitude) < 1e-12)
    let southEast = Tile(x: 1, y: 1, zoom: 1).bounds
    #expect(southEast.minLongitude == 0 && southEast.maxLongitude == 180)
    #expect(abs(southEast.maxLatitude) < 1e-12)
  }

  @Test func roundTrips() {
    var rng = SplitMix64(seed: 41)
    for _ in 0..<5_000 {
      let lon = Double.random(in: -180..<180, using: &rng)
      let lat = Double.random(in: -85...85, using: &rng)
      let zoom = Int.random(in: 0...22, using: &rng)
      let tile = WebMercator.tile(longitude: lon, latitude: lat, zoom: zoom)
      #expect(tile.bounds.contains(longitude: lon, latitude: lat), "\(lon), \(lat) at \(zoom)")
      let c = tile.bounds.center
      #expect(WebMercator.tile(longitude: c.longitude, latitude: c.latitude, zoom: zoom) == tile)
    }
  }

  @Test func groundSize() {
    // The classic 156,543.03 m per pixel of a 256-pixel tile at zoom 0 on the equator.
    #expect(abs(WebMercator.tileSize(latitude: 0, zoom: 0) / 256 - 156_543.033_928) < 1e-5)
    #expect(abs(WebMercator.tileSize(latitude: 60, zoom: 3) - 40_075_016.686 / 16) < 1e-2)
    #expect(
      WebMercator.tileSize(latitude: 45, zoom: 10) == WebMercator.tileSize(latitude: -45, zoom: 10))
  }
}
