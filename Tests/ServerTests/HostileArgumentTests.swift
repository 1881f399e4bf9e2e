import Datasets
import Foundation
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// Integers at the edges of their type and patterns built to exhaust the matcher, sent to the
/// real `cardatlas` process (a crash fails the test, not the test runner) and, where Redis has
/// the command, to a real redis-server: the replies must be Redis's, byte for byte, and the
/// server must answer PING after each.
@Suite("Hostile integers and glob patterns")
struct HostileArgumentTests {
  /// Int.max, Int.min, -1, 0, and 20 digits (one that fits a UInt64 and one that does not), and
  /// the first past Int.max.
  static let edges = [
    "9223372036854775807", "-9223372036854775808", "-1", "0", "12345678901234567890",
    "99999999999999999999", "9223372036854775808",
  ]

  // MARK: The crashes of issue 23

  @Test("SCAN with COUNT Int.max (was: overflow of start + count)")
  func scanCountOverflow() throws {
    try Pair.run { pair in
      try pair.compare(["SET", "a", "b"])
      try pair.compare(["SCAN", "0", "COUNT", "9223372036854775807"])
      // Redis's cursor 1 is a hash-table position, ours a rank: only ours is checked.
      #expect(
        try pair.ours.command("SCAN", "1", "COUNT", "9223372036854775807").text
          == "*2\r\n$1\r\n0\r\n*0\r\n")
      try pair.ping()
    }
  }

  @Test("GEO searches with COUNT Int.max, every form (was: overflow of count + 1)")
  func geoCountOverflow() throws {
    try Pair.run { pair in
      try pair.compare(["GEOADD", "g", "1", "1", "a", "1.001", "1.001", "b"])
      let max = "9223372036854775807"
      let lonlat = ["FROMLONLAT", "1", "1", "BYRADIUS", "100", "km"]
      for command in [
        ["GEOSEARCH", "g"] + lonlat + ["ASC", "COUNT", max],
        ["GEOSEARCH", "g"] + lonlat + ["COUNT", max],
        ["GEOSEARCH", "g"] + lonlat + ["ASC", "WITHDIST", "COUNT", max],
        [
          "GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "200", "200", "km", "ASC", "COUNT",
          max,
        ],
        ["GEORADIUS", "g", "1", "1", "100", "km", "ASC", "COUNT", max],
        ["GEORADIUSBYMEMBER", "g", "a", "100", "km", "ASC", "COUNT", max],
        ["GEOSEARCHSTORE", "d", "g"] + lonlat + ["ASC", "COUNT", max],
        ["ZRANGE", "d", "0", "-1", "WITHSCORES"],
      ] {
        try pair.compare(command)
      }
    }
  }

  @Test("KEYS and SCAN MATCH with 60,000 stars over a 100,000-byte key (was: stack overflow)")
  func deepGlob() throws {
    try Pair.run { pair in
      let key = String(repeating: "a", count: 100_000)
      let pattern = String(repeating: "*a", count: 60_000) + "b"
      try pair.compare(["SET", key, "v"])
      // Redis answers at once; a reply slower than the connection's 2 s timeout fails too.
      let quick = try RESPConnection(port: pair.port, timeoutSeconds: 2)
      let started = Date()
      #expect(try quick.command("KEYS", pattern).text == "*0\r\n")
      let seconds = Date().timeIntervalSince(started)
      #expect(seconds < 2, "KEYS took \(seconds) s")
      try pair.compare(["KEYS", pattern])
      try pair.compare(["SCAN", "0", "MATCH", pattern, "COUNT", "10"])
      // Under the nesting limit the matcher must still be quick: 999 stars, each followed by
      // more pattern, over 100,000 bytes.
      try pair.compare(["KEYS", String(repeating: "*a", count: 999) + "b"])
    }
  }

  @Test("CONFIG SET timeout takes Redis's bounds, and new connections still get their timer")
  func idleTimeoutBounds() throws {
    try Pair.run { pair in
      for value in ["9223372036854775807", "9223372037", "2147483648", "2147483647", "600"] {
        try pair.compare(["CONFIG", "SET", "timeout", value])
        // The timer is set up for each new connection.
        #expect(try RESPConnection(port: pair.port).command("PING").text == "+PONG\r\n")
      }
      try pair.compare(["CONFIG", "GET", "timeout"])
    }
  }

  // MARK: The class: every integer argument

  /// Each integer argument of each command (and the numbers read as floats beside them) given
  /// each edge value: the reply must be redis-server's, and the server must still answer.
  @Test("every integer argument at Int.max, Int.min, -1, 0 and 20 digits answers as Redis does")
  func integerArguments() throws {
    try Pair.run { pair in
      for setup in [
        ["SET", "a", "b"], ["SET", "s", "t"],
        ["GEOADD", "g", "1", "1", "a", "1.001", "1.001", "b", "1.002", "1.002", "c"],
        ["GEOADD", "g", "13.361389", "38.115556", "p", "-73.9", "40.7", "q"],
      ] {
        try pair.compare(setup)
      }
      let lonlat = ["FROMLONLAT", "1", "1", "BYRADIUS", "100", "km"]
      // `$` stands for the value; a second command, when given, checks what the first stored.
      let templates: [(command: [String], then: [String]?)] = [
        (["SCAN", "0", "COUNT", "$"], nil),
        (["SCAN", "0", "MATCH", "*", "COUNT", "$", "TYPE", "string"], nil),
        (["SELECT", "$"], ["SELECT", "0"]),
        (["HELLO", "$"], nil),
        (["ZRANGE", "g", "$", "2"], nil),
        (["ZRANGE", "g", "0", "$"], nil),
        (["ZRANGE", "g", "$", "-1", "REV", "WITHSCORES"], nil),
        (["ZRANGE", "g", "-2", "$", "REV"], nil),
        (["ZRANGE", "g", "$", "$"], nil),
        (["ZRANGE", "g", "0", "1", "LIMIT", "$", "-1"], nil),
        (["ZRANGE", "g", "-inf", "+inf", "BYSCORE", "LIMIT", "$", "2"], nil),
        (["ZRANGE", "g", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "$"], nil),
        (["ZRANGE", "g", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "$", "5", "WITHSCORES"], nil),
        (["ZRANGE", "g", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "0", "$"], nil),
        (["ZRANGE", "g", "$", "+inf", "BYSCORE"], nil),
        (["ZRANGE", "g", "-inf", "$", "BYSCORE", "WITHSCORES"], nil),
        (["GEOSEARCH", "g"] + lonlat + ["ASC", "COUNT", "$"], nil),
        (["GEOSEARCH", "g"] + lonlat + ["COUNT", "$"], nil),
        (["GEOSEARCH", "g"] + lonlat + ["DESC", "COUNT", "$", "WITHDIST"], nil),
        (["GEOSEARCH", "g"] + lonlat + ["ASC", "WITHDIST", "COUNT", "$"], nil),
        (["GEOSEARCH", "g"] + lonlat + ["COUNT", "$", "ANY"], nil),
        (
          [
            "GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "300", "300", "km", "ASC", "COUNT",
            "$", "WITHCOORD", "WITHHASH",
          ], nil
        ),
        (["GEOSEARCH", "g", "FROMMEMBER", "a", "BYRADIUS", "100", "km", "ASC", "COUNT", "$"], nil),
        (["GEORADIUS", "g", "1", "1", "100", "km", "ASC", "COUNT", "$"], nil),
        (["GEORADIUS_RO", "g", "1", "1", "100", "km", "COUNT", "$", "WITHDIST"], nil),
        (["GEORADIUSBYMEMBER", "g", "a", "100", "km", "ASC", "COUNT", "$"], nil),
        (["GEORADIUSBYMEMBER_RO", "g", "a", "100", "km", "DESC", "COUNT", "$"], nil),
        (
          ["GEOSEARCHSTORE", "d", "g"] + lonlat + ["ASC", "COUNT", "$"],
          ["ZRANGE", "d", "0", "-1", "WITHSCORES"]
        ),
        (
          ["GEOSEARCHSTORE", "d", "g"] + lonlat + ["COUNT", "$", "STOREDIST"],
          ["ZRANGE", "d", "0", "-1", "WITHSCORES"]
        ),
        (
          ["GEORADIUS", "g", "1", "1", "100", "km", "COUNT", "$", "STORE", "d"],
          ["ZRANGE", "d", "0", "-1", "WITHSCORES"]
        ),
        (
          ["GEORADIUSBYMEMBER", "g", "a", "100", "km", "COUNT", "$", "STOREDIST", "d"],
          ["ZRANGE", "d", "0", "-1", "WITHSCORES"]
        ),
        // Numbers read as floats, beside the integers.
        (["GEOSEARCH", "g", "FROMLONLAT", "$", "1", "BYRADIUS", "100", "km"], nil),
        (["GEOSEARCH", "g", "FROMLONLAT", "1", "$", "BYRADIUS", "100", "km"], nil),
        (["GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYRADIUS", "$", "km", "ASC"], nil),
        (["GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "$", "10", "km", "ASC"], nil),
        (["GEOSEARCH", "g", "FROMLONLAT", "1", "1", "BYBOX", "10", "$", "km"], nil),
        (["GEORADIUS", "g", "1", "1", "$", "m", "WITHDIST"], nil),
        (["GEORADIUSBYMEMBER", "g", "a", "$", "mi", "ASC", "COUNT", "2"], nil),
        (["GEOADD", "h", "$", "1", "m"], nil),
        (["GEOADD", "h", "1", "$", "m"], nil),
        (["CONFIG", "SET", "timeout", "$"], nil),
        (["CONFIG", "SET", "maxclients", "$"], nil),
      ]
      for (command, then) in templates {
        for value in Self.edges {
          try pair.compare(command.map { $0 == "$" ? value : $0 })
          if let then { try pair.compare(then) }
        }
      }
      // Cursors: Redis's is a position in its hash table, ours a rank in byte order, so a cursor
      // neither handed out means nothing alike; the errors must be the same, and an accepted
      // cursor must be answered.
      for value in Self.edges + ["", "+5", " 1", "-", "1x", "-18446744073709551615"] {
        let command = ["SCAN", value, "COUNT", "100"]
        let want = try pair.redis.command(command)
        let got = try pair.ours.command(command)
        if case .error = want.value {
          #expect(got.raw == want.raw, "\(command)")
        } else {
          guard case .array(let page) = got.value, page.count == 2 else {
            Issue.record("\(command): \(got.text.debugDescription)")
            continue
          }
        }
        try pair.ping()
      }
    }
  }

  // MARK: Glob semantics against Redis

  @Test("Redis's nesting limit: a pattern with more than 1,000 nested stars matches nothing")
  func nestingLimit() throws {
    try Pair.run { pair in
      try pair.compare(["SET", String(repeating: "a", count: 1001), "v"])
      for stars in [999, 1000, 1001, 1500] {
        try pair.compare(["KEYS", String(repeating: "*a", count: stars)])
        try pair.compare(["KEYS", String(repeating: "*a", count: stars) + "*"])
      }
      // The limit is real, not an artefact of this key: 1,000 match, 1,001 do not.
      #expect(
        try pair.ours.command("KEYS", String(repeating: "*a", count: 1000)).text.hasPrefix("*1"))
      #expect(try pair.ours.command("KEYS", String(repeating: "*a", count: 1001)).text == "*0\r\n")
    }
  }

  @Test("random patterns over random keys: KEYS and SCAN MATCH select what Redis selects")
  func randomGlobs() throws {
    try Pair.run { pair in
      var random = SeededGenerator(seed: 23)
      // Bytes that mean something to the matcher, letters in both cases, C's signed bytes.
      let alphabet: [UInt8] =
        Array("ab*?[]^-\\Az".utf8) + [0, 0x80, 0xC3, 0xFF]
      let keyAlphabet: [UInt8] = Array("abAB-]^\\*?z[".utf8) + [0, 0x80, 0xC3, 0xFF]
      var keys: Set<[UInt8]> = [[]]
      while keys.count < 200 {
        keys.insert(
          (0..<random.nextInt(below: 9)).map { _ in
            keyAlphabet[random.nextInt(below: keyAlphabet.count)]
          })
      }
      for key in keys { try pair.compareBytes([Array("SET".utf8), key, [0x76]]) }
      var compared = 0
      for round in 0..<3000 {
        let length = random.nextInt(below: 12)
        let pattern = (0..<length).map { _ in alphabet[random.nextInt(below: alphabet.count)] }
        try pair.compareBytes([Array("KEYS".utf8), pattern], unordered: true)
        if round % 5 == 0 {
          try pair.compareBytes(
            [
              Array("SCAN".utf8), [0x30], Array("MATCH".utf8), pattern, Array("COUNT".utf8),
              Array("1000".utf8),
            ], unordered: true)
        }
        compared += 1
      }
      #expect(compared == 3000)
      try pair.ping()
    }
  }
}

/// A redis-server and a cardatlas process given the same commands.
private struct Pair {
  let redis: RESPConnection
  let ours: RESPConnection
  /// The cardatlas server's, for more connections.
  let port: UInt16

  static func run(_ body: (Pair) throws -> Void) throws {
    let redisServer = try RedisProcess()
    defer { redisServer.stop() }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-hostile-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try CardAtlasProcess(directory: directory)
    try body(
      Pair(
        redis: RESPConnection(port: redisServer.port), ours: RESPConnection(port: server.port),
        port: server.port))
    #expect(server.isRunning)
  }

  func ping() throws {
    #expect(try ours.command("PING").text == "+PONG\r\n")
  }

  /// Sends `command` to both; the replies must be the same bytes (SCAN's keys the same set),
  /// and the server still up.
  func compare(_ command: [String]) throws {
    try compareBytes(command.map { Array($0.utf8) }, unordered: command.first == "SCAN")
  }

  /// `compare` with binary arguments; `unordered` compares the bulk strings of the reply (or of
  /// its second element, SCAN's keys) as sets, as KEYS and SCAN list keys in no set order.
  func compareBytes(_ command: [[UInt8]], unordered: Bool = false) throws {
    let frame = RESPConnection.frame(command)
    try redis.send(frame)
    let want = try redis.reply()
    try ours.send(frame)
    let got = try ours.reply()
    let same =
      unordered ? Self.keys(want.value) == Self.keys(got.value) : want.raw == got.raw
    #expect(
      same,
      "\(Self.describe(command))\n  redis:     \(want.text.debugDescription)\n  cardatlas: \(got.text.debugDescription)"
    )
    try ping()
  }

  /// A reply's cursor (if any) and its bulk strings, sorted.
  private static func keys(_ value: RESPValue) -> [[UInt8]] {
    func bulks(_ items: [RESPValue]) -> [[UInt8]] {
      items.compactMap {
        if case .bulkString(let b) = $0 { Array(b.readableBytesView) } else { nil }
      }
      .sorted { $0.lexicographicallyPrecedes($1) }
    }
    guard case .array(let items) = value else { return [Array("not an array".utf8)] }
    if items.count == 2, case .array(let page) = items[1] { return bulks([items[0]]) + bulks(page) }
    return bulks(items)
  }

  private static func describe(_ command: [[UInt8]]) -> String {
    command.map { argument in
      argument.count > 60
        ? "<\(argument.count) bytes>"
        : String(decoding: argument, as: UTF8.self).debugDescription
    }.joined(separator: " ")
  }
}
