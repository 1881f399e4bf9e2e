import Geodesy
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// Thousands of random GEO operations sent to CardAtlas and to a real redis-server 7.0, every
/// reply compared. Where Redis's own order is unspecified (equal distances under ASC/DESC,
/// which qsort leaves in any order), replies must agree up to that freedom.
@Suite("GEO commands against a real redis-server")
struct GeoDifferentialTests {
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
      if try Self.equalUpToTies(command, want.value, got.value, oracle: expected) { continue }
      mismatches += 1
      Issue.record(
        "\(command.joined(separator: " "))\n  redis:     \(want.text.debugDescription)\n  cardatlas: \(got.text.debugDescription)"
      )
      if mismatches > 10 { break }
    }
    #expect(compared >= 4000 || mismatches > 10)
    await ours.stop()
  }

  /// For a sorted search: the same number of results at the same distances, the same members
  /// below the last distance, and at the last distance only members that lie at it.
  static func equalUpToTies(
    _ command: [String], _ want: RESPValue, _ got: RESPValue, oracle: RESPConnection
  ) throws -> Bool {
    let name = command[0].uppercased()
    guard name.hasPrefix("GEOSEARCH") || name.hasPrefix("GEORADIUS"), name != "GEOSEARCHSTORE",
      case .array(let a) = want, case .array(let b) = got, a.count == b.count,
      let center = try Self.center(command, oracle: oracle)
    else { return false }
    let key = command[1]
    let members = (a + b).compactMap(Self.member)
    let positions = try Self.positions(key: key, members: members, oracle: oracle)
    func distance(_ element: RESPValue) -> Double? {
      guard let m = Self.member(element), let p = positions[m] else { return nil }
      return RedisGeoArea.distance(center.0, center.1, p.0, p.1)
    }
    let da = a.map(distance)
    let db = b.map(distance)
    guard da == db, let last = da.last ?? nil else { return false }
    let ea = a.map(Self.bytes)
    let eb = b.map(Self.bytes)
    let below = { (e: [[UInt8]], d: [Double?]) in
      zip(e, d).filter { $0.1! < last }.map(\.0).sorted { $0.lexicographicallyPrecedes($1) }
    }
    let truncated = command.contains { $0.uppercased() == "COUNT" }
    if !truncated {
      return ea.sorted { $0.lexicographicallyPrecedes($1) }
        == eb.sorted { $0.lexicographicallyPrecedes($1) }
    }
    return below(ea, da) == below(eb, db)
  }

  static func member(_ element: RESPValue) -> String? {
    switch element {
    case .bulkString(let b): return String(buffer: b)
    case .array(let parts): return parts.first.flatMap(member)
    default: return nil
    }
  }

  static func bytes(_ element: RESPValue) -> [UInt8] {
    var buffer = ByteBuffer()
    element.write(to: &buffer, protocol: .resp2)
    return Array(buffer.readableBytesView)
  }

  /// A coordinate as either protocol sends it: a bulk string in RESP2, a double in RESP3.
  static func number(_ value: RESPValue) -> Double? {
    switch value {
    case .bulkString(let b): return Double(String(buffer: b))
    case .double(let d): return d
    default: return nil
    }
  }

  static func center(_ command: [String], oracle: RESPConnection) throws -> (Double, Double)? {
    let upper = command.map { $0.uppercased() }
    if upper[0].hasPrefix("GEORADIUSBYMEMBER") {
      return try positions(key: command[1], members: [command[2]], oracle: oracle)[command[2]]
    }
    if upper[0].hasPrefix("GEORADIUS") {
      return (Double(command[2])!, Double(command[3])!)
    }
    if let i = upper.firstIndex(of: "FROMLONLAT") {
      return (Double(command[i + 1])!, Double(command[i + 2])!)
    }
    if let i = upper.firstIndex(of: "FROMMEMBER") {
      return try positions(key: command[1], members: [command[i + 1]], oracle: oracle)[
        command[i + 1]]
    }
    return nil
  }

  static func positions(key: String, members: [String], oracle: RESPConnection) throws -> [String: (
    Double, Double
  )] {
    guard !members.isEmpty else { return [:] }
    guard case .array(let replies) = try oracle.command(["GEOPOS", key] + members).value else {
      return [:]
    }
    var out: [String: (Double, Double)] = [:]
    for (m, reply) in zip(members, replies) {
      if case .array(let xy) = reply, xy.count == 2, let x = number(xy[0]), let y = number(xy[1]) {
        out[m] = (x, y)
      }
    }
    return out
  }
}
