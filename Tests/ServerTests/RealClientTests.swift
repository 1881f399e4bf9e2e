import Foundation
import RedisTestSupport
import Testing

/// The tools people already have: redis-cli (RESP and inline), redis-benchmark, redis-py.
@Suite("Real Redis clients")
struct RealClientTests {
  @Test("redis-cli: GEOADD, GEOSEARCH, GEODIST, and a script of inline commands")
  func redisCli() async throws {
    let server = try await TestServer()
    let port = String(server.port)
    let (added, _) = try RedisProcess.run(
      "redis-cli",
      [
        "-p", port, "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269",
        "37.502669", "Catania",
      ])
    #expect(added == "2\n")
    let (dist, _) = try RedisProcess.run(
      "redis-cli", ["-p", port, "GEODIST", "Sicily", "Palermo", "Catania", "km"])
    #expect(dist == "166.2742\n")
    let (found, _) = try RedisProcess.run(
      "redis-cli",
      [
        "-p", port, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC",
        "WITHDIST",
      ])
    #expect(found == "Catania\n56.4413\nPalermo\n190.4424\n")
    // Piped commands, as a shell script would send them.
    let (piped, status) = try RedisProcess.run(
      "redis-cli", ["-p", port], input: "PING\nGEOPOS Sicily Palermo\nZCARD Sicily\nNOSUCH\n")
    #expect(status == 0)
    #expect(piped.contains("PONG"))
    #expect(piped.contains("13.36138933897018433"))
    #expect(piped.contains("2\n"))
    #expect(piped.contains("ERR unknown command 'NOSUCH'"))
    await server.stop()
  }

  @Test("inline commands over a raw socket, as telnet and nc send them")
  func inlineCommands() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    try c.send(
      Array("GEOADD k 13.361389 38.115556 \"Palermo city\"\r\nGEOHASH k \"Palermo city\"\n".utf8))
    #expect(try c.reply().text == ":1\r\n")
    #expect(try c.reply().text == "*1\r\n$11\r\nsqc8b49rny0\r\n")
    await server.stop()
  }

  @Test("redis-benchmark runs its standard tests with no errors")
  func redisBenchmark() async throws {
    let server = try await TestServer()
    let (output, status) = try RedisProcess.run(
      "redis-benchmark",
      ["-p", String(server.port), "-t", "ping,set,get", "-n", "2000", "-c", "10", "-P", "4", "-q"])
    #expect(status == 0)
    for test in ["PING_INLINE", "PING_MBULK", "SET", "GET"] {
      #expect(output.contains("\(test): "), "redis-benchmark ran \(test)")
    }
    #expect(!output.contains("ERR"))
    await server.stop()
  }

  @Test("redis-py parses GEO replies, RESP3 included")
  func redisPy() async throws {
    let server = try await TestServer()
    let script = """
      import redis, sys
      for protocol in (2, 3):
          r = redis.Redis(port=\(server.port), protocol=protocol, decode_responses=True)
          r.flushdb()
          assert r.geoadd("cities", [2.3522, 48.8566, "Paris", 13.4050, 52.5200, "Berlin", -0.1276, 51.5072, "London"]) == 3
          near = r.geosearch("cities", longitude=2.35, latitude=48.85, radius=1000, unit="km", sort="ASC", withdist=True)
          assert [n for n, _ in near] == ["Paris", "London", "Berlin"], near
          assert abs(r.geodist("cities", "Paris", "Berlin", unit="km") - 877.7111) < 1e-4
          assert r.geosearchstore("near", "cities", member="Paris", radius=400, unit="km") == 2
          assert r.zcard("near") == 2
          assert r.type("cities") == "zset"
          pos = r.geopos("cities", "London")[0]
          assert abs(pos[0] + 0.1276) < 1e-5 and abs(pos[1] - 51.5072) < 1e-5
          try:
              r.geoadd("cities", [200, 10, "Nowhere"])
              assert False, "out of range accepted"
          except redis.ResponseError as e:
              assert "invalid longitude,latitude pair" in str(e)
      print("ok")
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    #expect(output.hasSuffix("ok\n"))
    await server.stop()
  }
}
