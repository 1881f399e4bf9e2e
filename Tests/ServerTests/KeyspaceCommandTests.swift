import NIOCore
import RESP
import RedisTestSupport
import Testing

/// The keyspace, string, connection and server commands against a real redis-server: the same
/// script on both, every reply compared (KEYS and SCAN pages, whose order Redis leaves open,
/// compared as sets).
@Suite("Keyspace and server commands against a real redis-server")
struct KeyspaceCommandTests {
  static let script: [[String]] = [
    ["SET", "s1", "hello"], ["SET", "s1", "again", "GET"], ["SET", "s1", "x", "NX"],
    ["SET", "new", "y", "XX"],
    ["GET", "s1"], ["GET", "missing"], ["GEOADD", "g1", "1", "2", "a", "3", "4", "b"],
    ["GEOADD", "g2", "5", "6", "c"], ["GEOADD", "h[x]", "5", "6", "c"], ["GET", "g1"],
    ["SET", "g2", "str"], ["TYPE", "g2"],
    ["TYPE", "g1"], ["TYPE", "s1"], ["TYPE", "nothing"], ["EXISTS", "g1", "s1", "nothing", "g1"],
    ["KEYS", "*"], ["KEYS", "g?"], ["KEYS", "h\\[x\\]"], ["KEYS", "[gs]*"], ["KEYS", "[^g]*"],
    ["KEYS", "*1"],
    ["DBSIZE"], ["SELECT", "3"], ["DBSIZE"], ["SET", "in3", "v"], ["KEYS", "*"], ["SELECT", "16"],
    ["SELECT", "x"],
    ["SELECT", "0"], ["DEL", "g1", "nothing", "s1"], ["EXISTS", "g1"], ["ZCARD", "g1"],
    ["ZSCORE", "g2", "c"],
    ["ZREM", "h[x]", "c"], ["EXISTS", "h[x]"], ["FLUSHDB", "bogus"], ["FLUSHDB"], ["DBSIZE"],
    ["SELECT", "3"],
    ["DBSIZE"], ["FLUSHALL", "SYNC"], ["DBSIZE"], ["PING"], ["PING", "hi"], ["PING", "a", "b"],
    ["ECHO", "e"],
    ["ECHO"], ["AUTH", "pw"], ["AUTH", "default", "anything"], ["AUTH", "a", "b", "c"],
    ["CLIENT", "SETNAME", "bad name"], ["CLIENT", "SETNAME", "good"], ["CLIENT", "GETNAME"],
    ["CLIENT"],
    ["CONFIG"], ["CONFIG", "GET"], ["HELLO", "4"], ["HELLO", "x"], ["FUNCTION", "FLUSH"],
    ["SET", "k"], ["GET"], ["scan"], ["scan", "x"], ["ZRANGE", "s1", "0", "-1"],
  ]

  @Test("a script of keyspace commands gives Redis's replies")
  func script() async throws {
    let redis = try RedisProcess()
    let ours = try await TestServer()
    defer { redis.stop() }
    let expected = try RESPConnection(port: redis.port)
    let actual = try RESPConnection(port: ours.port)
    for command in Self.script {
      let want = try expected.command(command)
      let got = try actual.command(command)
      if command[0] == "KEYS" {
        #expect(Self.sortedElements(want.value) == Self.sortedElements(got.value), "\(command)")
      } else {
        #expect(want.text == got.text, "\(command)")
      }
    }
    await ours.stop()
  }

  @Test("SCAN visits every key once, with MATCH, COUNT and TYPE")
  func scan() async throws {
    let ours = try await TestServer()
    let c = try RESPConnection(port: ours.port)
    for i in 0..<250 { _ = try c.command("SET", "s\(i)", "v") }
    for i in 0..<50 { _ = try c.command("GEOADD", "g\(i)", "1", "1", "m") }
    var seen: [String] = []
    var cursor = "0"
    repeat {
      guard case .array(let page) = try c.command("SCAN", cursor, "COUNT", "17").value,
        case .bulkString(let next) = page[0], case .array(let keys) = page[1]
      else { throw RESPConnection.Failed(description: "SCAN reply") }
      cursor = String(buffer: next)
      seen += keys.compactMap { if case .bulkString(let b) = $0 { String(buffer: b) } else { nil } }
    } while cursor != "0"
    #expect(seen.count == 300 && Set(seen).count == 300)
    guard
      case .array(let typed) = try c.command(
        "SCAN", "0", "COUNT", "1000", "TYPE", "zset", "MATCH", "g1*"
      ).value,
      case .array(let keys) = typed[1]
    else { throw RESPConnection.Failed(description: "SCAN reply") }
    #expect(keys.count == 11)  // g1, g10...g19
    await ours.stop()
  }

  static func sortedElements(_ value: RESPValue) -> [String] {
    guard case .array(let items) = value else { return [] }
    return items.compactMap { if case .bulkString(let b) = $0 { String(buffer: b) } else { nil } }
      .sorted()
  }
}
