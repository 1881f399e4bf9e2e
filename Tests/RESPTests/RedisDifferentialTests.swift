import RedisTestSupport
import Testing

@testable import RESP

/// Sends malformed requests to a real redis-server and checks that our parser fails with the same
/// reply text. Fails (rather than skips) without redis-server, so CI cannot silently lose it.
@Suite(.serialized) struct RedisDifferentialTests {
  static let malformed: [[UInt8]] = {
    let long = String(repeating: "1", count: 70_000)
    let texts = [
      "*abc\r\n", "*01\r\n", "*+3\r\n", "*\r\n", "*3x\r\n", "*99999999999999999999\r\n",
      "*2147483648\r\n", "*3\r\n:1\r\n", "*2\r\n$1\r\na\r\n+b\r\n", "*1\r\n\r\n", "*1\r\n$abc\r\n",
      "*1\r\n$-1\r\n", "*1\r\n$03\r\n", "*1\r\n$-0\r\n", "*1\r\n$ 3\r\n", "*1\r\n$\r\n",
      "*1\r\n$9999999999\r\n", "*1\r\n$536870913\r\n", "SET \"a b\r\n", "SET 'a\r\n",
      "SET \"a\"b\r\n", "SET 'a'b\r\n", "SET \"a\\\"\r\n", "*" + long, "*1\r\n$" + long,
      "GET " + long,
    ]
    return texts.map { Array($0.utf8) }
  }()

  @Test func protocolErrorsMatchRedis() throws {
    let redis: RedisProcess
    do {
      redis = try RedisProcess()
    } catch let error as RedisProcess.NotInstalled {
      Issue.record("\(error)")
      return
    }
    defer { redis.stop() }
    for input in Self.malformed {
      let theirs = try redis.exchange(input)
      let ours = protocolError(input).map { "-" + $0 }
      #expect(
        ours == theirs, "\(String(decoding: input.prefix(40), as: UTF8.self).debugDescription)")
    }
  }
}
