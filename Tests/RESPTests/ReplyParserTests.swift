import NIOCore
import Testing

@testable import RESP

/// A canonical text of a reply, to compare replies (RESPValue is not Equatable).
private func render(_ value: RESPValue) -> String {
  switch value {
  case .simpleString(let text): return "+\(text)"
  case .error(let text): return "-\(text)"
  case .integer(let value): return ":\(value)"
  case .bulkString(let bytes): return "$\(String(buffer: bytes).debugDescription)"
  case .null: return "null"
  case .nullArray: return "nullArray"
  case .array(let elements): return "[" + elements.map(render).joined(separator: ", ") + "]"
  case .set(let elements): return "~[" + elements.map(render).joined(separator: ", ") + "]"
  case .push(let elements): return ">[" + elements.map(render).joined(separator: ", ") + "]"
  case .map(let pairs):
    return "{" + pairs.map { render($0.key) + ": " + render($0.value) }.joined(separator: ", ")
      + "}"
  case .double(let value): return value.isNaN ? ",nan" : ",\(value)"
  case .boolean(let value): return "#\(value)"
  case .bigNumber(let digits): return "(\(digits)"
  case .verbatimString(let format, let text): return "=\(format):\(text.debugDescription)"
  default: return "other \(value)"
  }
}

/// Every reply in `input`, fed in chunks of the given sizes (cycled).
private func replies(_ input: String, chunks: [Int] = [Int.max]) throws -> [String] {
  try feed(input, chunks) { try $0.next() }.map(render)
}

/// What `skip()` makes of every reply in `input`.
private func summaries(_ input: String, chunks: [Int] = [Int.max]) throws -> [RESPReplySummary] {
  try feed(input, chunks) { try $0.skip() }
}

/// Feeds `input` in chunks, taking everything `take` yields after each, and checks that no bytes
/// are left over.
private func feed<T>(
  _ input: String, _ chunks: [Int], _ take: (inout RESPReplyParser) throws -> T?
) throws -> [T] {
  let bytes = Array(input.utf8)
  var parser = RESPReplyParser()
  var values: [T] = []
  var start = 0
  var chunk = 0
  while start < bytes.count {
    let end = min(bytes.count, start + min(chunks[chunk % chunks.count], bytes.count))
    parser.append(ByteBuffer(bytes: bytes[start..<end]))
    start = end
    chunk += 1
    while let value = try take(&parser) { values.append(value) }
  }
  #expect(parser.bufferedByteCount == 0, "bytes left over")
  return values
}

/// The error `skip(upTo:)` throws on `input`, if any.
private func skipError(_ input: String, _ parser: RESPReplyParser = RESPReplyParser()) -> String? {
  var parser = parser
  parser.append(ByteBuffer(string: input))
  do {
    _ = try parser.skip(upTo: 10) { _ in }
    return nil
  } catch {
    return error.message
  }
}

private func replyError(_ input: String) -> String? {
  do {
    _ = try replies(input)
    return nil
  } catch let error as RESPReplyError {
    return error.message
  } catch {
    return "unexpected \(error)"
  }
}

@Suite struct ReplyParserTests {
  /// One of each type, RESP2 then RESP3, with the rendering each must give.
  static let everyType: [(wire: String, value: String)] = [
    ("+OK\r\n", "+OK"),
    ("+\r\n", "+"),
    ("-ERR unknown command 'FOO'\r\n", "-ERR unknown command 'FOO'"),
    (":0\r\n", ":0"),
    (":-9223372036854775808\r\n", ":-9223372036854775808"),
    (":9223372036854775807\r\n", ":9223372036854775807"),
    ("$5\r\nhello\r\n", "$\"hello\""),
    ("$0\r\n\r\n", "$\"\""),
    ("$4\r\na\r\nb\r\n", "$\"a\\r\\nb\""),
    ("$-1\r\n", "null"),
    ("*-1\r\n", "nullArray"),
    ("*0\r\n", "[]"),
    ("*3\r\n:1\r\n*1\r\n+x\r\n$-1\r\n", "[:1, [+x], null]"),
    ("_\r\n", "null"),
    (",1.5\r\n", ",1.5"),
    (",-0.25\r\n", ",-0.25"),
    (",1e+300\r\n", ",1e+300"),
    (",inf\r\n", ",inf"),
    (",-inf\r\n", ",-inf"),
    (",nan\r\n", ",nan"),
    (",-nan\r\n", ",nan"),
    ("#t\r\n", "#true"),
    ("#f\r\n", "#false"),
    (
      "(3492890328409238509324850943850943825024385\r\n",
      "(3492890328409238509324850943850943825024385"
    ),
    ("(-12\r\n", "(-12"),
    ("=15\r\ntxt:Some string\r\n", "=txt:\"Some string\""),
    ("=4\r\nmkd:\r\n", "=mkd:\"\""),
    ("%2\r\n+a\r\n:1\r\n$1\r\nb\r\n#t\r\n", "{+a: :1, $\"b\": #true}"),
    ("%0\r\n", "{}"),
    ("~2\r\n+x\r\n:2\r\n", "~[+x, :2]"),
    (">3\r\n+message\r\n+chan\r\n$2\r\nhi\r\n", ">[+message, +chan, $\"hi\"]"),
    ("!21\r\nSYNTAX invalid syntax\r\n", "-SYNTAX invalid syntax"),
    // An attribute is skipped: the reply after it is what is returned.
    ("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n:7\r\n", ":7"),
    ("$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;1\r\nd\r\n;0\r\n", "$\"Hello word\""),
    ("*?\r\n:1\r\n:2\r\n.\r\n", "[:1, :2]"),
    ("%?\r\n+a\r\n:1\r\n.\r\n", "{+a: :1}"),
    ("~?\r\n.\r\n", "~[]"),
  ]

  @Test func readsEveryRESP2AndRESP3Type() throws {
    for (wire, value) in Self.everyType {
      #expect(try replies(wire) == [value], "\(wire.debugDescription)")
    }
  }

  @Test func readsAStreamSplitAtEveryByte() throws {
    let stream = Self.everyType.map(\.wire).joined()
    let whole = try replies(stream)
    #expect(whole == Self.everyType.map(\.value))
    #expect(try replies(stream, chunks: [1]) == whole)
    #expect(try replies(stream, chunks: [2, 3, 5, 7, 11]) == whole)
    // Every split point of a stream of two replies.
    let two = "*2\r\n$3\r\nabc\r\n%1\r\n+k\r\n,2.5\r\n:42\r\n"
    for split in 1..<two.utf8.count {
      #expect(try replies(two, chunks: [split, Int.max]) == ["[$\"abc\", {+k: ,2.5}]", ":42"])
    }
  }

  @Test func returnsNothingUntilAReplyIsComplete() throws {
    var parser = RESPReplyParser()
    for piece in ["*2\r", "\n$3\r\nab", "c\r", "\n:", "4"] {
      parser.append(ByteBuffer(string: piece))
      #expect(try parser.next() == nil)
    }
    parser.append(ByteBuffer(string: "2\r\n+PONG\r\n"))
    #expect(try parser.next().map(render) == "[$\"abc\", :42]")
    #expect(try parser.next().map(render) == "+PONG")
    #expect(try parser.next() == nil)
    #expect(parser.bufferedByteCount == 0)
  }

  @Test func readsWhatTheEncoderWrites() throws {
    let values: [RESPValue] = [
      .simpleString("OK"), .error("WRONGTYPE Operation against a key holding the wrong kind"),
      .integer(-7), .bulkString(ByteBuffer(string: "p1")), .null, .nullArray,
      .array([.bulkString(ByteBuffer(string: "p1")), .array([.double(0.5), .integer(3)])]),
      .map([(.simpleString("proto"), .integer(3))]), .set([.integer(1)]), .double(-1.25),
      .boolean(false), .bigNumber("-123456789012345678901234567890"),
      .verbatimString(format: "txt", text: "a\r\nb"), .push([.simpleString("pong")]),
    ]
    for version in [RESPProtocolVersion.resp2, .resp3] {
      var buffer = ByteBuffer()
      for value in values { value.write(to: &buffer, protocol: version) }
      let read = try replies(String(buffer: buffer), chunks: [3])
      #expect(read.count == values.count)
      if version == .resp3 {
        // RESP3 has one null for both of RESP2's.
        #expect(read == values.map { render($0) == "nullArray" ? "null" : render($0) })
      } else {
        // RESP2 has no types of its own for these: they arrive as what RESP2 sends instead.
        #expect(read[7] == "[+proto, :3]")
        #expect(read[8] == "[:1]")
        #expect(read[9] == "$\"-1.25\"")
        #expect(read[10] == ":0")
        #expect(read[11] == "$\"-123456789012345678901234567890\"")
        #expect(read[12] == "$\"a\\r\\nb\"")
        #expect(read[13] == "[+pong]")
      }
    }
  }

  @Test func skipCountsRepliesAndPicksOutErrors() throws {
    let stream = Self.everyType.map(\.wire).joined()
    let expected: [RESPReplySummary] = Self.everyType.map {
      $0.value.hasPrefix("-") ? .error(String($0.value.dropFirst())) : .value
    }
    #expect(try summaries(stream) == expected)
    #expect(try summaries(stream, chunks: [1]) == expected)
    #expect(try summaries("|1\r\n+a\r\n+b\r\n-ERR x\r\n") == [.error("ERR x")])
    #expect(
      try summaries("+PONG\r\n-WRONGTYPE Operation\r\n*1\r\n-ERR inside\r\n")
        == [.value, .error("WRONGTYPE Operation"), .value])
  }

  @Test func skipsManyRepliesInOnePass() throws {
    let stream = Self.everyType.map(\.wire).joined()
    let errors = Self.everyType.filter { $0.value.hasPrefix("-") }.map {
      String($0.value.dropFirst())
    }
    for chunk in [1, 7, Int.max] {
      var parser = RESPReplyParser()
      var seen: [String] = []
      var skipped = 0
      let bytes = Array(stream.utf8)
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + min(chunk, bytes.count))
        parser.append(ByteBuffer(bytes: bytes[start..<end]))
        start = end
        // At most three at a time: the rest wait for the next call.
        while case let n = try parser.skip(upTo: 3, onError: { seen.append($0) }), n > 0 {
          #expect(n <= 3)
          skipped += n
        }
      }
      #expect(skipped == Self.everyType.count, "chunks of \(chunk)")
      #expect(seen == errors, "chunks of \(chunk)")
      #expect(parser.bufferedByteCount == 0)
    }
  }

  @Test func skippingChecksHeadersAsReadingDoes() throws {
    #expect(skipError("$01\r\nx\r\n") == "invalid length '01'")
    #expect(skipError("$-2\r\n") == "invalid length '-2'")
    #expect(skipError("*1x\r\n") == "invalid aggregate length '1x'")
    #expect(skipError("$3\r\nabcd\r\n") == "string payload not followed by CRLF")
    #expect(
      skipError("$11\r\n", RESPReplyParser(maxBulkLength: 10)) == "string of 11 bytes is too long")
    #expect(
      skipError("*6\r\n", RESPReplyParser(maxAggregateLength: 5))
        == "aggregate of 6 elements is too long")
    // Nulls, empty strings and a 0 count take the general path or the plain one alike.
    var parser = RESPReplyParser()
    parser.append(ByteBuffer(string: "$-1\r\n*-1\r\n$0\r\n\r\n*0\r\n*2\r\n$1\r\na\r\n$-1\r\n"))
    #expect(try parser.skip(upTo: 10) { _ in } == 5)
    #expect(parser.bufferedByteCount == 0)
  }

  /// Flat arrays of bulk strings, simple strings and integers are what a load generator skips
  /// most, in one pass of their own: they must frame and fail exactly as the general path does.
  @Test func skippingFlatRepliesAgreesWithReadingThemAtEverySplit() throws {
    var rng = SystemRandomNumberGenerator()
    let elements = ["$0\r\n\r\n", "$5\r\nhe\rlo\r\n", "+OK\r\n", ":-42\r\n", ":0\r\n", "$-1\r\n"]
    for _ in 0..<300 {
      var stream = ""
      var expected: [RESPReplySummary] = []
      for _ in 0..<Int.random(in: 1...6, using: &rng) {
        if Int.random(in: 0..<6, using: &rng) == 0 {
          stream += "-ERR no\r\n"
          expected.append(.error("ERR no"))
          continue
        }
        let count = Int.random(in: 0...12, using: &rng)
        let body = (0..<count).map { _ in elements.randomElement(using: &rng)! }.joined()
        stream += count == 1 && Bool.random(using: &rng) ? body : "*\(count)\r\n" + body
        expected.append(.value)
      }
      let chunk = Int.random(in: 1...40, using: &rng)
      #expect(try summaries(stream, chunks: [chunk]) == expected, "\(stream.debugDescription)")
      #expect(try replies(stream, chunks: [chunk]).count == expected.count)
    }
    #expect(skipError("*2\r\n$1\r\na\r\n:12a\r\n") == "invalid integer '12a'")
    #expect(skipError("*2\r\n$1\r\na\r\n$1\r\nab\r\n") == "string payload not followed by CRLF")
    #expect(skipError("*1\r\n+OK\rX") == "CR not followed by LF")
    #expect(skipError("*2\r\n+OK\r\n?\r\n") == "unknown type byte '?'")
    #expect(skipError("*1\r\n$01\r\nx\r\n") == "invalid length '01'")
  }

  @Test func rejectsMalformedReplies() {
    #expect(replyError("?\r\n") == "unknown type byte '?'")
    #expect(replyError(":12a\r\n") == "invalid integer '12a'")
    #expect(replyError("$-2\r\n") == "invalid length '-2'")
    #expect(replyError("$3\r\nabcd\r\n") == "string payload not followed by CRLF")
    #expect(replyError("+OK\rX") == "CR not followed by LF")
    #expect(replyError("*x\r\n") == "invalid aggregate length 'x'")
    #expect(replyError("~-1\r\n") == "invalid aggregate length '-1'")
    #expect(replyError("#x\r\n") == "invalid boolean 'x'")
    #expect(replyError(",1.0x\r\n") == "invalid double '1.0x'")
    #expect(replyError(",0x1p3\r\n") == "invalid double '0x1p3'")
    #expect(replyError("(12a\r\n") == "invalid big number '12a'")
    #expect(replyError("=3\r\ntxt\r\n") == "verbatim string without a three-character format")
    #expect(replyError("_x\r\n") == "null with a payload")
    #expect(replyError("%?\r\n+a\r\n.\r\n") == "streamed map of odd length")
  }

  @Test func limitsNestingAndLengths() throws {
    var parser = RESPReplyParser(maxBulkLength: 10, maxAggregateLength: 5, maxDepth: 3)
    parser.append(ByteBuffer(string: "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n"))
    #expect(throws: RESPReplyError("aggregates nested deeper than 3")) { try parser.next() }
    // The failure sticks: the stream cannot be framed any more.
    parser.append(ByteBuffer(string: "+OK\r\n"))
    #expect(throws: RESPReplyError("aggregates nested deeper than 3")) { try parser.next() }

    var bulk = RESPReplyParser(maxBulkLength: 10)
    bulk.append(ByteBuffer(string: "$11\r\n"))
    #expect(throws: RESPReplyError("string of 11 bytes is too long")) { try bulk.next() }

    var aggregate = RESPReplyParser(maxAggregateLength: 5)
    aggregate.append(ByteBuffer(string: "*6\r\n"))
    #expect(throws: RESPReplyError("aggregate of 6 elements is too long")) { try aggregate.next() }

    var nested = RESPReplyParser(maxDepth: 3)
    nested.append(ByteBuffer(string: "*1\r\n*1\r\n*1\r\n:1\r\n"))
    #expect(try nested.next().map(render) == "[[[:1]]]")
  }

  @Test func aLargeReplyArrivingInPiecesIsReadOnce() throws {
    var parser = RESPReplyParser()
    var wire = ByteBuffer()
    let values = (0..<2000).map { RESPValue.bulkString(ByteBuffer(string: "member-\($0)")) }
    RESPValue.array(values).write(to: &wire, protocol: .resp2)
    let bytes = Array(wire.readableBytesView)
    var got: RESPValue?
    for start in stride(from: 0, to: bytes.count, by: 100) {
      #expect(got == nil)
      parser.append(ByteBuffer(bytes: bytes[start..<min(bytes.count, start + 100)]))
      got = try parser.next()
    }
    guard case .array(let elements) = got else {
      Issue.record("expected an array, got \(String(describing: got))")
      return
    }
    #expect(elements.count == 2000)
    #expect(render(elements[1999]) == "$\"member-1999\"")
  }
}
