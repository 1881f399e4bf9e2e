import Fences
import Foundation
import Geodesy
import RESP
import RedisTestSupport
import Testing

/// FENCE.* over the wire: events published to a fence's channel as GEO keys' members move.
@Suite("Fences over RESP")
struct FenceCommandTests {
  /// The next message on a subscribed connection, as JSON.
  static func event(_ c: RESPConnection) throws -> [String: Any] {
    guard case .array(let items) = try c.reply().value, items.count == 3,
      case .bulkString(let payload) = items[2],
      let object = try JSONSerialization.jsonObject(with: Data(String(buffer: payload).utf8))
        as? [String: Any]
    else { throw RESPConnection.Failed(description: "not a message") }
    return object
  }

  static func events(_ c: RESPConnection, _ count: Int) throws -> [String] {
    try (0..<count).map { _ in
      let e = try event(c)
      return "\(e["event"] ?? "") \(e["member"] ?? "")"
    }
  }

  @Test(
    "a circle fence on a GEO key: members moving in, within, out and through it, removed, and the key deleted, publish enter, inside, exit, outside and cross to its channel once durable, in order; FENCE.GET lists who is inside, members inside when it was set among them"
  )
  func eventsOnTheChannel() async throws {
    let server = try await TestServer()
    let admin = try RESPConnection(port: server.port)
    let listener = try RESPConnection(port: server.port)
    _ = try admin.command("GEOADD", "fleet", "13.4", "52.5", "parked")
    #expect(
      try admin.text(
        "FENCE.SET", "berlin", "KEY", "fleet", "CIRCLE", "13.4", "52.5", "1", "km", "DETECT",
        "enter,inside,exit,outside,cross", "NOREPEAT") == "OK")
    _ = try listener.command("SUBSCRIBE", "fence:berlin")
    _ = try admin.command("GEOADD", "fleet", "13.401", "52.5", "car")
    #expect(try Self.events(listener, 2) == ["enter car", "inside car"])
    // Within, no repeat; then out.
    _ = try admin.command("GEOADD", "fleet", "13.402", "52.5", "car")
    _ = try admin.command("GEOADD", "fleet", "13.6", "52.5", "car")
    #expect(try Self.events(listener, 2) == ["exit car", "outside car"])
    // Through it from west to east, both ends outside.
    _ = try admin.command("GEOADD", "fleet", "13.2", "52.5", "bus")
    _ = try admin.command("GEOADD", "fleet", "13.6", "52.5", "bus")
    let crossed = try Self.event(listener)
    #expect(crossed["event"] as? String == "cross" && crossed["member"] as? String == "bus")
    let point = crossed["point"] as? [Double] ?? []
    #expect(point.count == 2 && abs(point[0] - 13.6) < 1e-5 && abs(point[1] - 52.5) < 1e-5)
    let fence = try admin.object("FENCE.GET", "berlin")
    #expect(fence["inside"] as? [String] == ["parked"], "\(fence)")
    #expect(fence["detect"] as? [String] == ["enter", "inside", "exit", "outside", "cross"])
    // Removed, then the key deleted with one inside.
    _ = try admin.command("GEOADD", "fleet", "13.4", "52.5001", "car")
    #expect(try Self.events(listener, 2) == ["enter car", "inside car"])
    _ = try admin.command("ZREM", "fleet", "car")
    #expect(try Self.events(listener, 2) == ["exit car", "outside car"])
    _ = try admin.command("DEL", "fleet")
    #expect(try Self.events(listener, 2) == ["exit parked", "outside parked"])
    #expect(try admin.object("FENCE.GET", "berlin")["inside"] as? [String] == [])
    // A member's name in JSON, whatever its bytes.
    let odd = "q\"b\\n\n\u{1}é"
    _ = try admin.command("GEOADD", "fleet", "13.4", "52.5", odd)
    let oddEvents = [try Self.event(listener), try Self.event(listener)]
    #expect(oddEvents.allSatisfy { $0["member"] as? String == odd })
    let info = try admin.text("INFO", "fences")
    #expect(info.contains("fences:1\r\n") && info.contains("fence_keys:1\r\n"), "\(info)")
    #expect(info.contains("fence_events_published:13\r\n"), "\(info)")
    await server.stop()
  }

  @Test(
    "FENCE.LIST and FENCE.DEL; bad areas, GeoJSON, events and names are refused with a clear error; a string key is WRONGTYPE"
  )
  func commandsAndRefusals() async throws {
    let server = try await TestServer()
    let admin = try RESPConnection(port: server.port)
    let polygon =
      #"{"type":"Polygon","coordinates":[[[179,-1],[-179,-1],[-179,1],[179,1],[179,-1]]]}"#
    #expect(try admin.text("FENCE.SET", "dateline", "KEY", "k", "GEOJSON", polygon) == "OK")
    #expect(try admin.text("FENCE.SET", "box", "KEY", "k", "BOX", "170", "-5", "-170", "5") == "OK")
    #expect(try admin.command("FENCE.LIST").text.contains("dateline"))
    #expect(try admin.command("FENCE.LIST", "d*").text == "*1\r\n$8\r\ndateline\r\n")
    let refused: [([String], String)] = [
      (["FENCE.SET", "f", "KEY", "k", "CIRCLE", "200", "0", "1", "km"], "ERR invalid longitude"),
      (["FENCE.SET", "f", "KEY", "k", "CIRCLE", "0", "0", "-1", "km"], "ERR radius"),
      (["FENCE.SET", "f", "KEY", "k", "CIRCLE", "0", "0", "nan", "km"], "ERR radius"),
      (["FENCE.SET", "f", "KEY", "k", "CIRCLE", "0", "0", "1", "parsec"], "ERR unsupported unit"),
      (["FENCE.SET", "f", "KEY", "k", "BOX", "0", "5", "1", "4"], "ERR a box"),
      (["FENCE.SET", "f", "KEY", "k", "GEOJSON", "{"], "ERR invalid GeoJSON"),
      (
        ["FENCE.SET", "f", "KEY", "k", "GEOJSON", #"{"type":"Point","coordinates":[0,0]}"#],
        "ERR invalid GeoJSON: Point"
      ),
      (
        [
          "FENCE.SET", "f", "KEY", "k", "GEOJSON",
          #"{"type":"Polygon","coordinates":[[[0,0],[1,1],[0,0]]]}"#,
        ],
        "ERR invalid GeoJSON: a ring needs 3"
      ),
      (
        ["FENCE.SET", "f", "KEY", "k", "CIRCLE", "0", "0", "1", "km", "DETECT", "near"],
        "ERR unknown event 'near'"
      ),
      (["FENCE.SET", "f", "KEY", "k", "CIRCLE", "0", "0", "1", "km", "LOUDLY"], "ERR syntax"),
      (
        [
          "FENCE.SET", String(repeating: "n", count: 129), "KEY", "k", "CIRCLE", "0", "0", "1", "m",
        ],
        "ERR a fence's name"
      ),
    ]
    for (command, prefix) in refused {
      let reply = try admin.text(command)
      #expect(reply.hasPrefix(prefix), "\(command.prefix(6)): \(reply)")
    }
    _ = try admin.command("SET", "s", "v")
    #expect(
      try admin.text("FENCE.SET", "f", "KEY", "s", "CIRCLE", "0", "0", "1", "km")
        .hasPrefix("WRONGTYPE"))
    #expect(try admin.text("FENCE.DEL", "box") == "1")
    #expect(try admin.text("FENCE.DEL", "box") == "0")
    #expect(try admin.command("FENCE.GET", "box").text == "$-1\r\n")
    await server.stop()
  }

  @Test(
    "random moves of 60 members around a circle, a polygon with a hole across the antimeridian and a box: every event published equals what the fences' shapes say of each move, in order"
  )
  func randomMovesOverTheWire() async throws {
    let server = try await TestServer()
    let admin = try RESPConnection(port: server.port)
    let listener = try RESPConnection(port: server.port)
    let polygon =
      #"{"type":"Polygon","coordinates":[[[179,-2],[-178,-2],[-178,2],[179,2]],[[179.5,-0.5],[-179.5,-0.5],[-179.5,0.5],[179.5,0.5]]]}"#
    let shapes: [(String, [String], FenceShape)] = [
      (
        "c", ["CIRCLE", "180", "0", "150", "km"],
        FenceShape.circle(.init(longitude: 180, latitude: 0), radius: 150_000)!
      ),
      (
        "p", ["GEOJSON", polygon],
        FenceShape.polygons([
          [
            [(179, -2), (-178, -2), (-178, 2), (179, 2)].map {
              Coordinate(longitude: $0.0, latitude: $0.1)
            },
            [(179.5, -0.5), (-179.5, -0.5), (-179.5, 0.5), (179.5, 0.5)].map {
              Coordinate(longitude: $0.0, latitude: $0.1)
            },
          ]
        ])!
      ),
      (
        "b", ["BOX", "178", "-1", "-179", "3"],
        FenceShape.box(west: 178, south: -1, east: -179, north: 3)!
      ),
    ]
    var rng = SystemRandomNumberGenerator()
    var places: [String: Coordinate] = [:]
    // Half the members are there before the fences: those inside start as members.
    for i in 0..<30 {
      let at = Coordinate(
        longitude: OracleLongitude.wrap(180 + .random(in: -4...4, using: &rng)),
        latitude: .random(in: -4...4, using: &rng))
      _ = try admin.command("GEOADD", "fleet", "\(at.longitude)", "\(at.latitude)", "m\(i)")
      places["m\(i)"] = RedisGeohash.coordinate(
        score: RedisGeohash.score(longitude: at.longitude, latitude: at.latitude)!)
    }
    for (name, area, shape) in shapes {
      #expect(
        try admin.text(
          ["FENCE.SET", name, "KEY", "fleet"] + area + ["DETECT", "enter,exit", "CHANNEL", "moves"])
          == "OK")
      let inside = places.filter { shape.contains($0.value) }.keys.sorted()
      #expect(try admin.object("FENCE.GET", name)["inside"] as? [String] == inside, "\(name)")
    }
    _ = try listener.command("SUBSCRIBE", "moves")
    var expected: [String] = []
    for _ in 0..<600 {
      let member = "m\(Int.random(in: 0..<60, using: &rng))"
      let to = Coordinate(
        longitude: OracleLongitude.wrap(180 + .random(in: -4...4, using: &rng)),
        latitude: .random(in: -4...4, using: &rng))
      _ = try admin.command("GEOADD", "fleet", "\(to.longitude)", "\(to.latitude)", member)
      // The stored place is the geohash's, as GEOPOS gives it.
      let stored = RedisGeohash.coordinate(
        score: RedisGeohash.score(longitude: to.longitude, latitude: to.latitude)!)
      for (name, _, shape) in shapes {
        let was = places[member].map { shape.contains($0) } ?? false
        let now = shape.contains(stored)
        if now, !was { expected.append("\(name) enter \(member)") }
        if was, !now { expected.append("\(name) exit \(member)") }
      }
      places[member] = stored
    }
    var got: [String] = []
    for _ in 0..<expected.count {
      let e = try Self.event(listener)
      got.append("\(e["fence"] ?? "") \(e["event"] ?? "") \(e["member"] ?? "")")
    }
    #expect(got == expected)
    // Nothing more came.
    _ = try admin.command("PUBLISH", "moves", "end")
    guard case .array(let items) = try listener.reply().value, case .bulkString(let end) = items[2]
    else { throw RESPConnection.Failed(description: "no end marker") }
    #expect(String(buffer: end) == "end")
    print("fences over the wire: \(expected.count) events compared")
    await server.stop()
  }
}

enum OracleLongitude {
  static func wrap(_ x: Double) -> Double { x > 180 ? x - 360 : x < -180 ? x + 360 : x }
}

/// Fences kept across restarts and crashes, in the data directory's `fences.log`.
@Suite("Fences kept", .serialized)
struct FencesKeptTests {
  static func directory() -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-fences-\(UUID().uuidString)").path
  }

  @Test(
    "fences set and deleted, then kill -9: after the restart exactly the acknowledged fences are there, as they were set, members inside included, and they report moves; a last line cut short is dropped"
  )
  func survivesKillNine() async throws {
    let directory = Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var node = try CardAtlasProcess(directory: directory)
    let c = try RESPConnection(port: node.port)
    _ = try c.command("GEOADD", "fleet", "2.35", "48.85", "inside")
    for i in 0..<300 {
      #expect(
        try c.text(
          "FENCE.SET", "f\(i)", "KEY", "fleet", "CIRCLE", "2.35", "48.85", "\(i + 1)", "km",
          "DETECT", "enter,exit") == "OK")
    }
    for i in stride(from: 0, to: 300, by: 3) { #expect(try c.text("FENCE.DEL", "f\(i)") == "1") }
    let box = #"{"type":"Polygon","coordinates":[[[2,48],[3,48],[3,49],[2,49],[2,48]]]}"#
    #expect(try c.text("FENCE.SET", "paris", "KEY", "fleet", "GEOJSON", box, "NOREPEAT") == "OK")
    let before = try c.object("FENCE.GET", "paris")
    node.signal(SIGKILL)
    node.waitUntilExit()
    // A line the crash cut short: never acknowledged.
    let log = try FileHandle(forWritingAtPath: directory + "/fences.log").unwrap()
    log.seekToEndOfFile()
    log.write(Data(#"{"set":{"name":"torn","db":0"#.utf8))
    log.closeFile()
    node = try CardAtlasProcess(directory: directory, port: node.port)
    let d = try RESPConnection(port: node.port)
    let expected = Set((0..<300).filter { $0 % 3 != 0 }.map { "f\($0)" } + ["paris"])
    guard case .array(let names) = try d.command("FENCE.LIST").value else {
      throw RESPConnection.Failed(description: "FENCE.LIST")
    }
    let listed = Set(
      names.compactMap { if case .bulkString(let b) = $0 { String(buffer: b) } else { nil } })
    #expect(listed == expected)
    let after = try d.object("FENCE.GET", "paris")
    #expect(NSDictionary(dictionary: after) == NSDictionary(dictionary: before), "\(after)")
    #expect(after["inside"] as? [String] == ["inside"])
    let listener = try RESPConnection(port: node.port)
    _ = try listener.command("SUBSCRIBE", "fence:f1")
    _ = try d.command("GEOADD", "fleet", "2.35", "48.851", "car")
    let event = try FenceCommandTests.event(listener)
    #expect(event["event"] as? String == "enter" && event["member"] as? String == "car")
    node.signal(SIGKILL)
    node.waitUntilExit()
  }
}

extension Optional {
  fileprivate func unwrap() throws -> Wrapped {
    guard let self else { throw RESPConnection.Failed(description: "nil") }
    return self
  }
}

/// Fences that expire (`EX`).
@Suite("Fences that expire", .serialized)
struct FenceExpiryTests {
  @Test(
    "FENCE.SET … EX: FENCE.GET tells when it goes; it goes then, from FENCE.LIST and INFO; across a kill -9 a fence keeps its time and one whose time passed meanwhile is gone; a bad EX is refused"
  )
  func fencesExpire() async throws {
    let directory = FencesKeptTests.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var node = try CardAtlasProcess(directory: directory)
    let c = try RESPConnection(port: node.port)
    let circle = ["KEY", "fleet", "CIRCLE", "2.35", "48.85", "1", "km"]
    for bad in ["0", "-1", "soon", "315360001"] {
      #expect(
        try c.text(["FENCE.SET", "x"] + circle + ["EX", bad]).hasPrefix("ERR invalid expire"))
    }
    let before = Int64(Date().timeIntervalSince1970 * 1000)
    #expect(try c.text(["FENCE.SET", "brief"] + circle + ["EX", "1"]) == "OK")
    #expect(try c.text(["FENCE.SET", "short"] + circle + ["EX", "3"]) == "OK")
    #expect(try c.text(["FENCE.SET", "long"] + circle + ["EX", "3600"]) == "OK")
    #expect(try c.text(["FENCE.SET", "kept"] + circle) == "OK")
    let long = try c.object("FENCE.GET", "long")["expires"] as? Int64 ?? 0
    #expect(long >= before + 3_600_000 && long <= before + 3_610_000, "\(long)")
    let short = try c.object("FENCE.GET", "short")["expires"] as? Int64 ?? 0
    #expect(try c.object("FENCE.GET", "kept")["expires"] == nil)
    // Gone once its second is up (polled: a sanitizer's build is slow).
    var gone = false
    for _ in 0..<100 where !gone {
      try await Task.sleep(for: .milliseconds(100))
      gone = try c.command("FENCE.GET", "brief").text == "$-1\r\n"
    }
    #expect(gone)
    #expect(
      Int64(Date().timeIntervalSince1970 * 1000) >= before + 1000, "not before its time")
    #expect(try c.command("FENCE.LIST").text.contains("long"))
    node.signal(SIGKILL)
    node.waitUntilExit()
    // Down until short's time has passed.
    while Int64(Date().timeIntervalSince1970 * 1000) <= short + 200 {
      try await Task.sleep(for: .milliseconds(100))
    }
    node = try CardAtlasProcess(directory: directory, port: node.port)
    let d = try RESPConnection(port: node.port)
    guard case .array(let names) = try d.command("FENCE.LIST").value else {
      throw RESPConnection.Failed(description: "FENCE.LIST")
    }
    let listed = names.compactMap {
      if case .bulkString(let b) = $0 { String(buffer: b) } else { nil }
    }
    #expect(listed == ["kept", "long"], "short's time passed while the server was down")
    #expect(try d.object("FENCE.GET", "long")["expires"] as? Int64 == long)
    node.signal(SIGKILL)
    node.waitUntilExit()
  }
}
