import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// PIN.AT and PIN.OPEN against brute force: random pins and points, with circles that cross
/// the antimeridian and circles that hold a pole.
@Suite("Photo pins against brute force")
struct PinOracleTests {
  struct Model {
    let centre: (Double, Double)
    let radius: Double
    let photo: [UInt8]?
  }

  @Test("PIN.AT is every circle holding the point, nearest first; PIN.OPEN agrees with it")
  func againstBruteForce() async throws {
    let server = try await TestDaemon(pins: { _ in })
    let (c, _, _) = try server.signedIn("ana@x.org")
    var generator = SystemRandomNumberGenerator()
    // Where the pins gather: a city, the antimeridian, both poles, and anywhere.
    let spots: [(Double, Double, Double)] = [
      (2.35, 48.85, 0.5), (179.9, -16.5, 0.6), (-179.95, 65.0, 0.8), (0, 89.9, 1.5),
      (120, -89.8, 1.5), (0, 0, 180),
    ]
    func point(near spot: (Double, Double, Double)) -> (Double, Double) {
      var lon = spot.0 + Double.random(in: -spot.2...spot.2, using: &generator)
      if lon > 180 { lon -= 360 }
      if lon < -180 { lon += 360 }
      let lat = min(
        90, max(-90, spot.1 + Double.random(in: -spot.2...spot.2, using: &generator) / 2))
      return (lon, lat)
    }
    var pins: [Int: Model] = [:]
    for i in 0..<400 {
      let p = point(near: spots[i % spots.count])
      // Radii from 10 m to 50 km, spread on a log scale.
      let radius = exp(Double.random(in: log(10)...log(50_000), using: &generator)).rounded()
      let id = try c.pin(p.0, p.1, radius)
      let photo: [UInt8]? = i % 3 == 0 ? TestPhoto.jpeg(Array("pin \(id)".utf8)) : nil
      if let photo { _ = try c.photo(id, photo) }
      pins[id] = Model(centre: p, radius: radius, photo: photo)
    }
    // Circles that do cross the antimeridian and hold the poles, for certain.
    for (lon, lat, radius) in [
      (179.99, 10.0, 20_000.0), (-179.98, 10.0, 20_000.0), (45.0, 89.95, 30_000.0),
      (-100.0, -89.9, 50_000.0),
    ] {
      let id = try c.pin(lon, lat, radius)
      let photo = TestPhoto.png(Array("edge \(id)".utf8))
      _ = try c.photo(id, photo)
      pins[id] = Model(centre: (lon, lat), radius: radius, photo: photo)
    }
    var queries = (0..<600).map { i in point(near: spots[i % spots.count]) }
    queries += [(180, 10), (-180, 10), (0, 90), (77, 90), (0, -90), (-33, -90), (179.999, -16.5)]
    var nonEmpty = 0
    for q in queries {
      let expected = pins.map { ($0.key, pinDistance(from: q, to: $0.value.centre), $0.value) }
        .filter { $0.1 <= $0.2.radius }
        .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
      let found = try c.hitIds("PIN.AT", "\(q.0)", "\(q.1)")
      #expect(found == expected, "PIN.AT \(q)")
      if !expected.isEmpty { nonEmpty += 1 }
      // PIN.OPEN from the same point, for every pin that holds it and as many that do not.
      let others = pins.keys.filter { !expected.contains($0) }.shuffled(using: &generator)
      for id in expected + others.prefix(max(3, expected.count)) {
        let model = pins[id]!
        let d = pinDistance(from: q, to: model.centre)
        let reply = try c.command("PIN.OPEN", "\(id)", "\(q.0)", "\(q.1)").value
        if d > model.radius {
          #expect(
            reply.textValue == "NOTINRANGE \(max(1, Int((d - model.radius).rounded(.up))))",
            "PIN.OPEN \(id) from \(q)")
        } else if let photo = model.photo {
          #expect(reply.bytes == photo, "PIN.OPEN \(id) from \(q)")
        } else {
          #expect(reply.textValue.hasPrefix("NOTFOUND"), "PIN.OPEN \(id) from \(q)")
        }
      }
    }
    #expect(nonEmpty > 100, "enough points fall inside circles")
    // The edge cases were hit: a point across the antimeridian from its pin, and a pole.
    #expect(try c.hitIds("PIN.AT", "-180", "10").count >= 2)
    #expect(try !c.hitIds("PIN.AT", "0", "90").isEmpty)
    #expect(try !c.hitIds("PIN.AT", "0", "-90").isEmpty)
    await server.stop()
  }
}
