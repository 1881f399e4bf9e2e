import Foundation
import RESP
import RedisTestSupport
import Server
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Malformed and hostile input gets a clear error, costs nothing, and harms no other client.
@Suite("Bad input and limits")
struct BadInputTests {
  @Test("a malformed frame gets Redis's protocol error and closes that connection only")
  func malformedFrame() async throws {
    let server = try await TestServer()
    let bystander = try RESPConnection(port: server.port)
    try bystander.command("SET", "k", "v")
    for (bytes, error) in [
      ("*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length\r\n"),
      ("*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"),
      ("*2\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"),
      ("PING \"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"),
    ] {
      let bad = try RESPConnection(port: server.port)
      try bad.send(Array(bytes.utf8))
      #expect(try bad.reply().text == error)
      #expect(bad.isClosedByPeer())
    }
    #expect(try bystander.command("GET", "k").text == "$1\r\nv\r\n")
    await server.stop()
  }

  @Test("huge declared lengths are refused before any memory is set aside for them")
  func hugeLengths() async throws {
    let server = try await TestServer()
    for (bytes, error) in [
      ("*1\r\n$2147483648\r\n", "-ERR Protocol error: invalid bulk length\r\n"),
      ("*99999999999\r\n", "-ERR Protocol error: invalid multibulk length\r\n"),
      ("*1\r\n$99999999999999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"),
    ] {
      let bad = try RESPConnection(port: server.port)
      // No body follows: the reply must come from the header alone.
      try bad.send(Array(bytes.utf8))
      #expect(try bad.reply().text == error)
    }
    let rss = try RESPConnection(port: server.port).command("INFO", "memory").text
    #expect(rss.contains("used_memory_rss:"))
    await server.stop()
  }

  @Test("configured limits: inline line, bulk length, array length")
  func configuredLimits() async throws {
    let server = try await TestServer { config in
      config.limits = RESPLimits(maxInlineLength: 1024, maxBulkLength: 100, maxArrayLength: 10)
    }
    let a = try RESPConnection(port: server.port)
    try a.send(Array(String(repeating: "x", count: 2000).utf8))
    #expect(try a.reply().text == "-ERR Protocol error: too big inline request\r\n")
    let b = try RESPConnection(port: server.port)
    try b.send(Array("*2\r\n$3\r\nGET\r\n$101\r\n".utf8))
    #expect(try b.reply().text == "-ERR Protocol error: invalid bulk length\r\n")
    let c = try RESPConnection(port: server.port)
    try c.send(Array("*11\r\n".utf8))
    #expect(try c.reply().text == "-ERR Protocol error: invalid multibulk length\r\n")
    let d = try RESPConnection(port: server.port)
    #expect(try d.command("ECHO", String(repeating: "y", count: 100)).value.isBulk)
    await server.stop()
  }

  @Test("NaN, out-of-range coordinates, wrong arity, unknown commands and options")
  func clearErrors() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    #expect(
      try c.command("GEOADD", "k", "nan", "1", "m").text == "-ERR value is not a valid float\r\n")
    #expect(
      try c.command("GEOADD", "k", "181", "1", "m").text
        == "-ERR invalid longitude,latitude pair 181.000000,1.000000\r\n")
    // Thirty digits: read as strtod reads them (redis-server's replies), no overflow on the way.
    #expect(
      try c.command("GEOADD", "k", String(repeating: "9", count: 30), "1", "m").text
        == "-ERR invalid longitude,latitude pair "
        + "1000000000000000019884624838656.000000,1.000000\r\n")
    #expect(
      try c.command("GEOADD", "k", "0.000000000000000000000000001", "1", "tiny").text
        == ":1\r\n")
    #expect(
      try c.command("GEOSEARCH", "k", "FROMLONLAT", "0", "90", "BYRADIUS", "1", "km").text
        == "-ERR invalid longitude,latitude pair 0.000000,90.000000\r\n")
    #expect(
      try c.command("GEOADD", "k").text == "-ERR wrong number of arguments for 'geoadd' command\r\n"
    )
    #expect(
      try c.command("NOSUCH", "a", "b").text
        == "-ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' \r\n")
    #expect(
      try c.command("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "SIDEWAYS")
        .text
        == "-ERR syntax error\r\n")
    #expect(
      try c.command("CLIENT", "NOSUCH").text
        == "-ERR unknown subcommand 'NOSUCH'. Try CLIENT HELP.\r\n")
    #expect(
      try c.command("GEOADD", "k", "1", "1", "m").text == ":1\r\n", "nothing was lost on the way")
    await server.stop()
  }

  @Test(
    "with --requirepass only PING, ECHO, QUIT, HELLO, AUTH and the sign-up commands run before AUTH; the keyspace answers NOAUTH"
  )
  func requirePass() async throws {
    let server = try await TestServer { $0.requirePassword = "s3cret" }
    let c = try RESPConnection(port: server.port)
    #expect(try c.command("PING").text == "+PONG\r\n")
    #expect(try c.command("ECHO", "hi").text == "$2\r\nhi\r\n")
    for command in [
      ["GEOADD", "k", "1", "1", "m"], ["DBSIZE"], ["KEYS", "*"], ["CLIENT", "LIST"],
    ] {
      #expect(try c.command(command).text == "-NOAUTH Authentication required.\r\n", "\(command)")
    }
    #expect(
      try c.command("AUTH", "wrong").text
        == "-WRONGPASS invalid username-password pair or user is disabled.\r\n")
    // HELLO switches the protocol (redis-py 8 opens with HELLO 3), and signs nobody in.
    #expect(try c.command("HELLO", "3").text.hasPrefix("%7\r\n"))
    #expect(try c.command("DBSIZE").text == "-NOAUTH Authentication required.\r\n")
    #expect(try c.command("HELLO", "2").text.hasPrefix("*14\r\n"))
    #expect(try c.command("AUTH", "s3cret").text == "+OK\r\n")
    #expect(try c.command("PING").text == "+PONG\r\n")
    let d = try RESPConnection(port: server.port)
    #expect(try d.command("HELLO", "3", "AUTH", "default", "s3cret").text.hasPrefix("%7\r\n"))
    #expect(try d.command("QUIT").text == "+OK\r\n")
    await server.stop()
  }

  @Test("connections beyond maxclients are refused with Redis's error")
  func maxClients() async throws {
    let server = try await TestServer { $0.maxClients = 2 }
    let a = try RESPConnection(port: server.port)
    let b = try RESPConnection(port: server.port)
    #expect(try a.command("PING").text == "+PONG\r\n")
    #expect(try b.command("PING").text == "+PONG\r\n")
    let c = try RESPConnection(port: server.port)
    #expect(try c.reply().text == "-ERR max number of clients reached\r\n")
    await server.stop()
  }

  @Test("an idle connection is closed after the timeout")
  func idleTimeout() async throws {
    let server = try await TestServer { $0.idleTimeout = 1 }
    let c = try RESPConnection(port: server.port)
    #expect(try c.command("PING").text == "+PONG\r\n")
    #expect(c.isClosedByPeer())
    await server.stop()
  }

  @Test("a stalled client and a client that never reads do not delay others")
  func slowClients() async throws {
    let server = try await TestServer()
    let setup = try RESPConnection(port: server.port)
    var args = ["GEOADD", "big"]
    for i in 0..<5000 {
      args += [String(Double(i % 360) - 179.5), String(Double(i % 170) - 84.5), "m\(i)"]
    }
    #expect(try setup.command(args).text == ":5000\r\n")
    // Half a frame, then silence.
    let stalled = try RESPConnection(port: server.port)
    try stalled.send(Array("*3\r\n$3\r\nSET\r\n$1\r\nk".utf8))
    // A pipeline of large replies that is never read.
    let greedy = try RESPConnection(port: server.port)
    let query = RESPConnection.frame([
      "GEOSEARCH", "big", "FROMLONLAT", "0", "0", "BYRADIUS", "20000", "km", "WITHCOORD",
    ])
    Thread {
      for _ in 0..<400 { try? greedy.send(query) }
    }.start()
    let other = try RESPConnection(port: server.port, timeoutSeconds: 5)
    for _ in 0..<100 { #expect(try other.command("PING").text == "+PONG\r\n") }
    #expect(try other.command("ZCARD", "big").text == ":5000\r\n")
    await server.stop()
  }

  @Test("binds to loopback unless told otherwise")
  func loopbackByDefault() {
    #expect(ServerConfiguration().host == "127.0.0.1")
  }
}

extension RESPValue {
  var isBulk: Bool {
    if case .bulkString = self { return true }
    return false
  }
}
