import Foundation
import RESP
import RedisTestSupport
import Server
import Synchronization
import Testing

/// Pub/sub through the protocol: replies compared byte for byte with a real redis-server in
/// RESP2 and RESP3, the account namespaces' rules, messages among a connection's ordered
/// replies, and the pubsub output limit.
@Suite("Pub/sub")
struct PubSubTests {
  /// One step of a script: a connection (by number) sends a command (none: it only reads what
  /// was published to it) and reads `frames` replies.
  struct Step {
    let connection: Int
    let command: [String]
    let frames: Int

    init(_ connection: Int, _ command: String..., frames: Int = 1) {
      self.connection = connection
      self.command = command
      self.frames = frames
    }
  }

  /// Runs the script on fresh connections (those in `resp3` after HELLO 3) and returns each
  /// step's bytes.
  static func run(_ script: [Step], port: UInt16, resp3: Set<Int>, setup: [[String]]) throws
    -> [String]
  {
    let first = try RESPConnection(port: port)
    for command in setup { _ = try first.command(command) }
    let count = (script.map(\.connection).max() ?? 0) + 1
    let connections = try (0..<count).map { _ in try RESPConnection(port: port) }
    for i in resp3 { _ = try connections[i].command("HELLO", "3") }
    return try script.map { step in
      let c = connections[step.connection]
      if !step.command.isEmpty { try c.send(RESPConnection.frame(step.command)) }
      return try (0..<step.frames).map { _ in try c.reply().text }.joined()
    }
  }

  /// The steps whose bytes differ from a real redis-server's, with both.
  /// `setup` runs first, on a connection of its own.
  static func differences(
    _ script: [Step], resp3: Set<Int> = [], setup: [[String]] = [], port: UInt16
  ) throws -> [String] {
    let redis = try RedisProcess()
    defer { redis.stop() }
    let expected = try run(script, port: redis.port, resp3: resp3, setup: setup)
    let got = try run(script, port: port, resp3: resp3, setup: setup)
    return zip(script, zip(expected, got)).compactMap { step, pair in
      pair.0 == pair.1
        ? nil : "\(step.command): redis \(pair.0.debugDescription), got \(pair.1.debugDescription)"
    }
  }

  @Test(
    "RESP2: subscriptions, the subscribed context's refusals, PING, messages, UNSUBSCRIBE, PUBSUB, RESET equal Redis's byte for byte"
  )
  func resp2() async throws {
    let server = try await TestServer()
    let script: [Step] = [
      Step(0, "UNSUBSCRIBE"), Step(0, "PUNSUBSCRIBE"),
      Step(0, "SUBSCRIBE", "news", "sport", frames: 2), Step(0, "SUBSCRIBE", "news"),
      Step(0, "GET", "k"), Step(0, "CONFIG", "GET", "maxclients"), Step(0, "PUBSUB", "NUMPAT"),
      Step(0, "PING"), Step(0, "PING", "hi"), Step(0, "PSUBSCRIBE", "n*", "s?ort", frames: 2),
      Step(1, "PUBLISH", "news", "hello"), Step(0, frames: 2),
      Step(1, "PUBLISH", "sport", "goal"), Step(0, frames: 2),
      Step(0, "ECHO", "x"), Step(0, "SUBSCRIBE"), Step(0, "NOSUCH"),
      Step(1, "PUBSUB", "NUMSUB", "news", "nothing", "sport"), Step(1, "PUBSUB", "NUMSUB"),
      Step(1, "PUBSUB", "NUMPAT"), Step(1, "PUBSUB", "CHANNELS", "n*"),
      Step(1, "PUBSUB", "CHANNELS", "x*"), Step(1, "PUBSUB"), Step(1, "PUBSUB", "NOPE"),
      Step(1, "PUBSUB", "NUMPAT", "x"), Step(1, "PUBSUB", "CHANNELS", "a", "b"),
      Step(1, "PUBLISH", "nows", "binary\u{0}\r\n"), Step(0, frames: 1),
      Step(1, "PUBLISH", "other", "x"), Step(1, "PUBLISH", "x"), Step(1, "PUBSUB", "HELP", "x"),
      Step(0, "UNSUBSCRIBE", "news", "never", frames: 2), Step(0, "PUNSUBSCRIBE", "n*"),
      Step(1, "PUBLISH", "news", "after"), Step(0, "UNSUBSCRIBE"), Step(0, "PUNSUBSCRIBE"),
      Step(0, "GET", "k"), Step(0, "SUBSCRIBE", "news"), Step(0, "RESET"), Step(0, "GET", "k"),
      Step(0, "PING"), Step(1, "PUBSUB", "NUMSUB", "news"),
    ]
    let differences = try Self.differences(script, port: server.port)
    #expect(differences == [], "\(differences)")
    await server.stop()
  }

  @Test(
    "RESP3: confirmations and messages are pushes (one published to itself before PUBLISH's reply), and the connection runs any command; equal to Redis's"
  )
  func resp3() async throws {
    let server = try await TestServer()
    let script: [Step] = [
      Step(0, "SUBSCRIBE", "news", "sport", frames: 2), Step(0, "PSUBSCRIBE", "s*"),
      Step(0, "PING"), Step(0, "PING", "hi"), Step(0, "GET", "k"), Step(0, "ZCARD", "k"),
      Step(0, "PUBLISH", "news", "to myself", frames: 2), Step(1, "PUBLISH", "sport", "goal"),
      Step(0, frames: 2), Step(0, "ECHO", "after"), Step(0, "PUBSUB", "NUMSUB", "news", "sport"),
      Step(0, "PUBSUB", "NUMPAT"), Step(0, "UNSUBSCRIBE", "news"), Step(0, "PUNSUBSCRIBE", "s*"),
      Step(0, "UNSUBSCRIBE"), Step(0, "UNSUBSCRIBE"), Step(0, "RESET"), Step(0, "PING"),
    ]
    let differences = try Self.differences(script, resp3: [0], port: server.port)
    #expect(differences == [], "\(differences)")
    await server.stop()
  }

  @Test(
    "With requirepass: NOAUTH before AUTH, then the admin's pub/sub equals Redis's, account channels included"
  )
  func adminAgainstRedis() async throws {
    let server = try await TestServer()
    let script: [Step] = [
      Step(2, "SUBSCRIBE", "news"), Step(2, "PUBLISH", "news", "x"), Step(0, "AUTH", "pw"),
      Step(1, "AUTH", "pw"), Step(0, "SUBSCRIBE", "wallet:5", "news", frames: 2),
      Step(0, "PSUBSCRIBE", "account:*"), Step(1, "PUBLISH", "wallet:5", "hi"), Step(0, frames: 1),
      Step(1, "PUBLISH", "account:9", "a"), Step(0, frames: 1),
      Step(1, "PUBSUB", "CHANNELS", "wallet:*"), Step(1, "PUBSUB", "NUMSUB", "wallet:5"),
      Step(1, "PUBSUB", "NUMPAT"), Step(0, "UNSUBSCRIBE", "wallet:5"), Step(0, "RESET"),
      // Signed out by RESET. (Not PING: unlike Redis, CardAtlas answers it before AUTH.)
      Step(0, "GET", "k"), Step(0, "AUTH", "pw"), Step(0, "PING"),
    ]
    let differences = try Self.differences(
      script, setup: [["CONFIG", "SET", "requirepass", "pw"]], port: server.port)
    #expect(differences == [], "\(differences)")
    await server.stop()
  }

  @Test(
    "Without --requirepass the account namespaces are closed: SUBSCRIBE wallet:5, patterns that could reach them and PUBLISH to them are NOPERM; other channels behave as Redis's"
  )
  func namespacesWithoutAdmin() async throws {
    let server = try await TestServer()
    let c = try RESPConnection(port: server.port)
    let noPerm =
      "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n"
    for channel in ["wallet:5", "account:5", "wallet:", "account:x"] {
      #expect(try c.command("SUBSCRIBE", channel).text == noPerm, "\(channel)")
      #expect(try c.command("PUBLISH", channel, "forged").text == noPerm, "\(channel)")
    }
    // One refused channel refuses the command: nothing was subscribed.
    #expect(try c.command("SUBSCRIBE", "news", "wallet:5").text == noPerm)
    for pattern in [
      "wallet:*", "*", "w*", "*:5", "[vw]allet:?", "wallet\\:5", "?ccount:1*", "*t:*",
    ] {
      #expect(try c.command("PSUBSCRIBE", pattern).text == noPerm, "\(pattern)")
    }
    #expect(try c.command("PSUBSCRIBE", "news.*").text.hasPrefix("*3\r\n$10\r\npsubscribe"))
    #expect(try c.command("PSUBSCRIBE", "wallet").text.hasSuffix(":2\r\n"))
    #expect(try c.command("PSUBSCRIBE", "accounts").text.hasSuffix(":3\r\n"))
    await server.stop()
  }

  @Test(
    "With --requirepass the admin hears and publishes anything; PUBSUB shows account channels to the admin only"
  )
  func admin() async throws {
    let server = try await TestServer { $0.requirePassword = "pw" }
    let admin = try RESPConnection(port: server.port)
    #expect(try admin.command("SUBSCRIBE", "x").text.hasPrefix("-NOAUTH"))
    #expect(try admin.command("AUTH", "pw").text == "+OK\r\n")
    #expect(try admin.command("PSUBSCRIBE", "wallet:*").text.hasSuffix(":1\r\n"))
    let publisher = try RESPConnection(port: server.port)
    _ = try publisher.command("AUTH", "pw")
    #expect(try publisher.command("PUBLISH", "wallet:5", "{}").text == ":1\r\n")
    #expect(
      try admin.reply().text
        == "*4\r\n$8\r\npmessage\r\n$8\r\nwallet:*\r\n$8\r\nwallet:5\r\n$2\r\n{}\r\n")
    let listener = try RESPConnection(port: server.port)
    _ = try listener.command("AUTH", "pw")
    _ = try listener.command("SUBSCRIBE", "account:7")
    #expect(try publisher.command("PUBSUB", "CHANNELS").text == "*1\r\n$9\r\naccount:7\r\n")
    #expect(
      try publisher.command("PUBSUB", "NUMSUB", "account:7").text
        == "*2\r\n$9\r\naccount:7\r\n:1\r\n")
    let clients = ServerCommandTests.text(try publisher.command("CLIENT", "LIST").value)
    #expect(clients.contains("flags=P db=0 sub=0 psub=1 "))
    #expect(clients.contains("flags=P db=0 sub=1 psub=0 "))
    #expect(clients.contains("flags=N db=0 sub=0 psub=0 "))
    let info = ServerCommandTests.fields(
      ServerCommandTests.text(try publisher.command("INFO", "stats").value))
    #expect(info["pubsub_channels"] == "1" && info["pubsub_patterns"] == "1")
    await server.stop()
  }

  @Test(
    "RESP2: a message waits behind the replies before its subscription's; RESP3: pushes interleave whole with ordered replies"
  )
  func order() async throws {
    let server = try await TestServer()
    let publisher = try RESPConnection(port: server.port)
    // A durable write's reply, then the confirmation, then the message, however fast the
    // message comes.
    let subscriber = try RESPConnection(port: server.port)
    try subscriber.send(
      RESPConnection.frame(["GEOADD", "k", "1", "1", "m"])
        + RESPConnection.frame(["SUBSCRIBE", "news"]))
    while try publisher.command("PUBLISH", "news", "first").text == ":0\r\n" {}
    #expect(try subscriber.reply().text == ":1\r\n")
    #expect(try subscriber.reply().text == "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n")
    #expect(
      try subscriber.reply().text == "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nfirst\r\n")

    // RESP3: 300 pipelined writes and reads while 300 messages arrive: the replies in order,
    // each message whole and in publishing order, wherever it falls.
    let both = try RESPConnection(port: server.port)
    _ = try both.command("HELLO", "3")
    _ = try both.command("SUBSCRIBE", "feed")
    let rounds = 300
    let publishing = Thread {
      for i in 0..<rounds { _ = try? publisher.command("PUBLISH", "feed", "m\(i)") }
    }
    publishing.start()
    var pipeline: [UInt8] = []
    for i in 0..<rounds {
      pipeline += RESPConnection.frame(["GEOADD", "k3", "2", "2", "p\(i)"])
      pipeline += RESPConnection.frame(["ZCARD", "k3"])
    }
    try both.send(pipeline)
    var replies: [String] = []
    var messages: [String] = []
    while replies.count < 2 * rounds || messages.count < rounds {
      let reply = try both.reply()
      if case .push(let items) = reply.value {
        messages.append(reply.text)
        #expect(items.count == 3)
      } else {
        replies.append(reply.text)
      }
    }
    #expect(replies == (0..<rounds).flatMap { [":1\r\n", ":\($0 + 1)\r\n"] })
    #expect(
      messages
        == (0..<rounds).map {
          ">3\r\n$7\r\nmessage\r\n$4\r\nfeed\r\n$\("m\($0)".utf8.count)\r\nm\($0)\r\n"
        })
    await server.stop()
  }

  @Test(
    "A subscriber that never reads is closed by the pubsub output limit; the others hear every message"
  )
  func slowSubscriber() async throws {
    let server = try await TestServer()
    let admin = try RESPConnection(port: server.port)
    let limits = try admin.command("CONFIG", "GET", "client-output-buffer-limit").text
    #expect(
      limits
        == "*2\r\n$26\r\nclient-output-buffer-limit\r\n$55\r\nnormal 268435456 67108864 60 pubsub 33554432 8388608 60\r\n",
      "\(limits)")
    #expect(
      try admin.command("CONFIG", "SET", "client-output-buffer-limit", "pubsub 8mb 2mb 60").text
        == "+OK\r\n")
    let slow = try RESPConnection(port: server.port)
    _ = try slow.command("SUBSCRIBE", "flood")
    let reader = try RESPConnection(port: server.port)
    _ = try reader.command("SUBSCRIBE", "flood")
    let count = 6000
    let payload = String(repeating: "x", count: 8 * 1024)
    let heard = Mutex(0)
    let reading = Thread {
      while let reply = try? reader.reply(), case .array(let items) = reply.value, items.count == 3
      {
        heard.withLock { $0 += 1 }
      }
    }
    reading.start()
    var delivered: [Int] = []
    for _ in 0..<count {
      guard case .integer(let n) = try admin.command("PUBLISH", "flood", payload).value else {
        break
      }
      delivered.append(n)
    }
    // 48 MB for each: the slow one went at 8 MB (and what the kernel holds), the reader heard
    // them all.
    #expect(delivered.count == count && delivered.first == 2 && delivered.last == 1)
    for _ in 0..<200 where heard.withLock({ $0 }) < count { usleep(50_000) }
    #expect(heard.withLock { $0 } == count)
    let info = ServerCommandTests.fields(
      ServerCommandTests.text(try admin.command("INFO", "stats").value))
    #expect(info["client_output_buffer_limit_disconnections"] == "1")
    #expect(info["pubsub_channels"] == "1")
    await server.stop()
  }
}
