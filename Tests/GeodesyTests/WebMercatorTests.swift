import Geodesy
import Testing

@Suite struct WebMercatorTests {
  @Test func edges() {
    #expect(abs(WebMercator.y(latitude: WebMercator.maximumLatitude)) < 1e-15)
    #expect(abs(WebMercator.y(latitude: -WebMercator.maximumLatitude) - 1) < 1e-15)
    #expect(WebMercator.y(latitude: 0) == 0.5)
    #expect(WebMercator.y(latitude: 89.9) == 0)
    #expect(WebMercator.y(latitude: -89.9) == 1)
    #expect(WebMercator.x(longitude: -180) == 0)
    #expect(WebMercator.x(longitude: 180) == 1)
    #expect(abs(WebMercator.latitude(y: 0) - WebMercator.maximumLatitude) < 1e-12)
    #expect(abs(WebMercator.latitude(y: 1) + WebMercator.maximumLatitude) < 1e-12)
  }

  @Test func roundTrips() {
    var rng = SplitMix64(seed: 5)
    for _ in 0..<10_000 {
      let lon = Double.random(in: -180...180, using: &rng)
      let lat = Double.random(
        in: -WebMercator.maximumLatitude...WebMercator.maximumLatitude, using: &rng)
      #expect(abs(WebMercator.longitude(x: WebMercator.x(longitude: lon)) - lon) < 1e-12)
      #expect(abs(WebMercator.latitude(y: WebMercator.y(latitude: lat)) - lat) < 1e-9)
    }
  }
}
