import Geodesy
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// Thousands of random GEO operations sent to CardAtlas and to a real redis-server 7.0, every
/// reply compared byte for byte. Equal distances under ASC/DESC too: Redis documents no order
/// for them, but its qsort (glibc's merge sort) is stable, so they keep Redis's scan order.
@Suite("GEO commands against a real redis-server")
struct GeoDifferentialTests {
  @Test("equal distances come in Redis's order: duplicates by name, mirrored points by cell")
  func equalDistances() async throws {
    let redis = try RedisProcess()
    let ours = try await TestServer()
    defer { redis.stop() }
    let expected = try RESPConnection(port: redis.port)
    let actual = try RESPConnection(port: ours.port)
    // Names added in an order unlike their sorted order; points mirrored about the centres
    // (0, 0) and (10, 10) lie at exactly equal distances in different geohash cells.
    var adds: [[String]] = []
    for (i, name) in ["q", "b", "zz", "a", "m", "c", "ab"].enumerated() {
      adds.append(["GEOADD", "ties", "10", "10", "dup-\(name)"])
      let d = String(0.001 * Double(i + 1))
      for (x, y) in [(d, "0"), ("-" + d, "0"), ("0", d), ("0", "-" + d)] {
        adds.append(["GEOADD", "ties", x, y, "\(name)\(x)/\(y)"])
      }
    }
    var searches: [[String]] = []
    for centre in [["0", "0"], ["10", "10"]] {
      for order in ["ASC", "DESC"] {
        for count in [[], ["COUNT", "1"], ["COUNT", "3"], ["COUNT", "8"], ["COUNT", "40"]] {
          searches.append(
            ["GEOSEARCH", "ties", "FROMLONLAT"] + centre + ["BYRADIUS", "5", "km", order] + count)
          searches.append(
            ["GEORADIUS", "ties"] + centre + ["5", "km", "WITHDIST", order] + count)
        }
      }
    }
    for command in adds + searches {
      let want = try expected.command(command)
      let got = try actual.command(command)
      #expect(
        want.raw == got.raw,
        "\(command.joined(separator: " "))\n  redis:     \(want.text.debugDescription)\n  cardatlas: \(got.text.debugDescription)"
      )
    }
    await ours.stop()
  }

  @Test("random operations give Redis's replies (seed 3 in RESP3)", arguments: [UInt64(1), 2, 3])
  func randomOperations(seed: UInt64) async throws {
    let redis = try RedisProcess()
    let ours = try await TestServer()
    defer { redis.stop() }
    let expected = try RESPConnection(port: redis.port)
    let actual = try RESPConnection(port: ours.port)
    // The last seed speaks RESP3 (HELLO's own reply names the server, so it is not compared).
    if seed == 3 {
      _ = try expected.command("HELLO", "3")
      _ = try actual.command("HELLO", "3")
    }
    var generator = GeoOperationGenerator(seed: seed)
    var compared = 0
    var mismatches = 0
    for _ in 0..<4000 {
      let command = generator.next()
      let want = try expected.command(command)
      let got = try actual.command(command)
      compared += 1
      if want.raw == got.raw { continue }
      mismatches += 1
      Issue.record(
        "\(command.joined(separator: " "))\n  redis:     \(want.text.debugDescription)\n  cardatlas: \(got.text.debugDescription)"
      )
      if mismatches > 10 { break }
    }
    #expect(compared >= 4000 || mismatches > 10)
    await ours.stop()
  }
}
