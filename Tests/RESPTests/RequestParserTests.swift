import NIOCore
import Testing

@testable import RESP

@Suite struct RequestParserTests {
  static let pipeline = bytes(
    "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\nPING\r\n*0\r\n*-1\r\n\r\n"
      + "GET \"a b\"\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n")
  static let expected = [
    words("SET", "k", "hello"), words("PING"), words("GET", "a b"), words("ECHO", ""),
  ]

  @Test func multibulkFrames() throws {
    #expect(try parseAll(bytes("*1\r\n$4\r\nPING\r\n")) == [words("PING")])
    #expect(try parseAll(bytes("*2\r\n$3\r\nGET\r\n$0\r\n\r\n")) == [words("GET", "")])
  }

  @Test func emptyMultibulksAndBlankLinesAreSkipped() throws {
    #expect(try parseAll(bytes("*0\r\n*-1\r\n\r\n\n   \r\nPING\r\n")) == [words("PING")])
  }

  @Test func pipelineInOnePiece() throws {
    #expect(try parseAll(Self.pipeline) == Self.expected)
  }

  @Test func pipelineSplitAtEveryByte() throws {
    #expect(try parseAll(Self.pipeline, chunks: [1]) == Self.expected)
    for split in 1..<Self.pipeline.count {
      #expect(try parseAll(Self.pipeline, chunks: [split, Int.max]) == Self.expected)
    }
  }

  @Test func pipelineInRandomChunks() throws {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let chunks = (0..<8).map { _ in Int.random(in: 1...12, using: &generator) }
      #expect(try parseAll(Self.pipeline, chunks: chunks) == Self.expected, "chunks \(chunks)")
    }
  }

  /// Whole commands take the one-pass path, split ones the incremental path: both give the same.
  @Test func wholeAndSplitCommandsParseAlike() throws {
    var random = SystemRandomNumberGenerator()
    var input: [UInt8] = []
    var expected: [[[UInt8]]] = []
    for _ in 0..<300 {
      let command = (0..<Int.random(in: 1...12, using: &random)).map { _ in
        (0..<Int.random(in: 0...40, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        }
      }
      expected.append(command)
      input += bytes("*\(command.count)\r\n")
      for argument in command {
        input += bytes("$\(argument.count)\r\n") + argument + bytes("\r\n")
      }
    }
    #expect(try parseAll(input) == expected)
    #expect(try parseAll(input, chunks: [1]) == expected)
    #expect(try parseAll(input, chunks: [7, 300, 2]) == expected)
  }

  @Test func bulkStringsAreBinarySafe() throws {
    let payload: [UInt8] = [0, 13, 10, 255, 0x2A, 0x24, 13, 10, 0]
    let input = bytes("*2\r\n$3\r\nSET\r\n$9\r\n") + payload + bytes("\r\n")
    #expect(try parseAll(input, chunks: [1]) == [words("SET") + [payload]])
  }

  @Test func inlineWordsAndQuotes() throws {
    #expect(try parseAll(bytes("  SET  k\tv \r\n")) == [words("SET", "k", "v")])
    #expect(try parseAll(bytes("ECHO \"a b\" 'c d' \"\"\n")) == [words("ECHO", "a b", "c d", "")])
    #expect(try parseAll(bytes("ECHO a\"b c\" d\n")) == [words("ECHO", "ab c", "d")])
    #expect(try parseAll(bytes("ECHO 'it\\'s' 'a\\nb'\n")) == [words("ECHO", "it's", "a\\nb")])
  }

  @Test func inlineEscapes() throws {
    let line = bytes(#"ECHO "\"\\\n\r\t\b\a\x41\x7a\q\xZZ""#) + [10]
    let expected: [UInt8] = [34, 92, 10, 13, 9, 8, 7, 0x41, 0x7A] + bytes("q") + bytes("xZZ")
    #expect(try parseAll(line) == [words("ECHO") + [expected]])
  }

  @Test func inlineLineEndsAtNul() throws {
    #expect(try parseAll([0x41, 0x20, 0x42, 0, 0x43, 10]) == [words("A", "B")])
  }

  @Test func protocolErrorsHaveRedisTexts() {
    let cases: [(String, String)] = [
      ("*abc\r\n", "invalid multibulk length"),
      ("*01\r\n", "invalid multibulk length"),
      ("*+3\r\n", "invalid multibulk length"),
      ("*\r\n", "invalid multibulk length"),
      ("*99999999999999999999\r\n", "invalid multibulk length"),
      ("*1048577\r\n", "invalid multibulk length"),
      ("*3\r\n:1\r\n", "expected '$', got ':'"),
      ("*1\r\n\r\n", "expected '$', got ' '"),
      ("*1\r\n$abc\r\n", "invalid bulk length"),
      ("*1\r\n$-1\r\n", "invalid bulk length"),
      ("*1\r\n$03\r\n", "invalid bulk length"),
      ("*1\r\n$ 3\r\n", "invalid bulk length"),
      ("*1\r\n$536870913\r\n", "invalid bulk length"),
      ("SET \"a b\r\n", "unbalanced quotes in request"),
      ("SET 'a\r\n", "unbalanced quotes in request"),
      ("SET \"a\"b\r\n", "unbalanced quotes in request"),
      ("SET 'a'b\r\n", "unbalanced quotes in request"),
      ("SET \"a\\\"\r\n", "unbalanced quotes in request"),
    ]
    for (input, text) in cases {
      #expect(
        protocolError(bytes(input)) == "ERR Protocol error: " + text, "\(input.debugDescription)")
    }
  }

  @Test func overlongLinesAreRefused() {
    let long = String(repeating: "1", count: 64 * 1024 + 1)
    #expect(protocolError(bytes("*" + long)) == "ERR Protocol error: too big mbulk count string")
    #expect(
      protocolError(bytes("*1\r\n$" + long)) == "ERR Protocol error: too big bulk count string")
    #expect(protocolError(bytes("GET " + long)) == "ERR Protocol error: too big inline request")
    #expect(protocolError(bytes(String(repeating: "a", count: 64 * 1024)) + [10]) == nil)
  }

  @Test func limitsAreConfigurable() {
    let limits = RESPLimits(maxInlineLength: 8, maxBulkLength: 3, maxArrayLength: 2)
    #expect(
      protocolError(bytes("PING 12345\r\n"), limits: limits)
        == "ERR Protocol error: too big inline request")
    #expect(
      protocolError(bytes("*3\r\n"), limits: limits)
        == "ERR Protocol error: invalid multibulk length")
    #expect(
      protocolError(bytes("*1\r\n$4\r\n"), limits: limits)
        == "ERR Protocol error: invalid bulk length")
    #expect(protocolError(bytes("*2\r\n$3\r\nabc\r\n$3\r\ndef\r\n"), limits: limits) == nil)
  }

  @Test func hugeDeclaredLengthsAllocateNothing() throws {
    var parser = RESPRequestParser()
    parser.append(ByteBuffer(string: "*1\r\n$536870912\r\nabc"))
    #expect(try parser.next() == nil)
    #expect(parser.bufferedByteCount == 3)

    for input in ["*1\r\n$9999999999\r\n", "*2147483647\r\n"] {
      var parser = RESPRequestParser()
      parser.append(ByteBuffer(string: input))
      #expect(throws: RESPProtocolError.self) { try parser.next() }
      #expect(parser.bufferedByteCount == 0)
    }
  }

  @Test func parserRefusesInputAfterAnError() {
    var parser = RESPRequestParser()
    parser.append(ByteBuffer(string: "*x\r\n"))
    #expect(throws: RESPProtocolError.invalidMultibulkLength) { try parser.next() }
    parser.append(ByteBuffer(string: "PING\r\n"))
    #expect(throws: RESPProtocolError.invalidMultibulkLength) { try parser.next() }
    #expect(parser.bufferedByteCount == 0)
  }

  @Test func trailingBytesAfterBulkAreSkippedLikeRedis() throws {
    #expect(
      try parseAll(bytes("*1\r\n$3\r\nabcXY*1\r\n$1\r\nb\r\n")) == [words("abc"), words("b")])
  }
}
