import RESP
import RedisTestSupport
import Testing

/// A write's reply waits for the store, and the store answers a whole transaction's writes at
/// once; replies must still leave each connection in command order, behind the writes they
/// follow.
@Suite("Reply order with pipelined durable writes")
struct ReplyOrderTests {
  @Test("several connections pipeline writes between reads: every reply comes in order")
  func pipelinedWritesAndReads() async throws {
    let server = try await TestServer()
    let connections = try (0..<4).map { _ in try RESPConnection(port: server.port) }
    let rounds = 2000
    // Everything is sent before anything is read, so that writes of all the connections share
    // transactions, and reads run while the writes before them wait.
    for (c, connection) in connections.enumerated() {
      var pipeline: [UInt8] = []
      for i in 0..<rounds {
        let longitude = String(Double(i % 350) - 175 + Double(c) / 10)
        pipeline += RESPConnection.frame(["GEOADD", "order\(c)", longitude, "10", "m\(i)"])
        pipeline += RESPConnection.frame(["ECHO", "\(c):\(i)"])
        if i % 100 == 99 {
          pipeline += RESPConnection.frame(["GEOADD", "order\(c)", "CH", "1", "1", "m\(i)"])
        }
      }
      try connection.send(pipeline)
    }
    for (c, connection) in connections.enumerated() {
      for i in 0..<rounds {
        #expect(try connection.reply().text == ":1\r\n", "connection \(c), GEOADD \(i)")
        let echo = "\(c):\(i)"
        #expect(try connection.reply().text == "$\(echo.utf8.count)\r\n\(echo)\r\n")
        if i % 100 == 99 {
          #expect(try connection.reply().text == ":1\r\n", "connection \(c), move \(i)")
        }
      }
      #expect(try connection.command("ZCARD", "order\(c)").text == ":\(rounds)\r\n")
    }
    await server.stop()
  }
}
