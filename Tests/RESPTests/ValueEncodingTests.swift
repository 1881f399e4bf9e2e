import NIOCore
import Testing

@testable import RESP

@Suite struct ValueEncodingTests {
  func encoded(_ value: RESPValue, _ version: RESPProtocolVersion) -> String {
    var buffer = ByteBuffer()
    value.write(to: &buffer, protocol: version)
    return String(buffer: buffer)
  }

  func expect(
    _ value: RESPValue, resp2: String, resp3: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(encoded(value, .resp2) == resp2, sourceLocation: sourceLocation)
    #expect(encoded(value, .resp3) == resp3, sourceLocation: sourceLocation)
  }

  @Test func resp2Types() {
    expect(.simpleString("OK"), resp2: "+OK\r\n", resp3: "+OK\r\n")
    expect(.error("ERR bad\r\nthing"), resp2: "-ERR bad  thing\r\n", resp3: "-ERR bad  thing\r\n")
    expect(.integer(-42), resp2: ":-42\r\n", resp3: ":-42\r\n")
    expect(
      .bulkString(ByteBuffer(string: "a\r\nb")), resp2: "$4\r\na\r\nb\r\n",
      resp3: "$4\r\na\r\nb\r\n")
    expect(.bulkString(ByteBuffer()), resp2: "$0\r\n\r\n", resp3: "$0\r\n\r\n")
    expect(.null, resp2: "$-1\r\n", resp3: "_\r\n")
    expect(.nullArray, resp2: "*-1\r\n", resp3: "_\r\n")
    expect(
      .array([.integer(1), .array([]), .null]), resp2: "*3\r\n:1\r\n*0\r\n$-1\r\n",
      resp3: "*3\r\n:1\r\n*0\r\n_\r\n")
  }

  @Test func resp3TypesAndTheirResp2Fallbacks() {
    expect(
      .map([
        (.simpleString("a"), .integer(1)), (.bulkString(ByteBuffer(string: "b")), .boolean(true)),
      ]),
      resp2: "*4\r\n+a\r\n:1\r\n$1\r\nb\r\n:1\r\n", resp3: "%2\r\n+a\r\n:1\r\n$1\r\nb\r\n#t\r\n")
    expect(.set([.integer(7)]), resp2: "*1\r\n:7\r\n", resp3: "~1\r\n:7\r\n")
    expect(.boolean(false), resp2: ":0\r\n", resp3: "#f\r\n")
    expect(
      .bigNumber("-3492890328409238509324850943850943825024385"),
      resp2: "$44\r\n-3492890328409238509324850943850943825024385\r\n",
      resp3: "(-3492890328409238509324850943850943825024385\r\n")
    expect(
      .verbatimString(format: "txt", text: "Some string"), resp2: "$11\r\nSome string\r\n",
      resp3: "=15\r\ntxt:Some string\r\n")
    expect(
      .push([.bulkString(ByteBuffer(string: "message")), .integer(1)]),
      resp2: "*2\r\n$7\r\nmessage\r\n:1\r\n", resp3: ">2\r\n$7\r\nmessage\r\n:1\r\n")
  }

  /// Expected texts are what redis-server 7.0.15 replies to ZSCORE in RESP2 and RESP3.
  @Test func doublesAsRedis70PrintsThem() {
    expect(.double(0.1), resp2: "$19\r\n0.10000000000000001\r\n", resp3: ",0.10000000000000001\r\n")
    expect(.double(1.5), resp2: "$3\r\n1.5\r\n", resp3: ",1.5\r\n")
    expect(.double(.infinity), resp2: "$3\r\ninf\r\n", resp3: ",inf\r\n")
    expect(.double(-.infinity), resp2: "$4\r\n-inf\r\n", resp3: ",-inf\r\n")
    expect(
      .double(1e300), resp2: "$23\r\n1.0000000000000001e+300\r\n",
      resp3: ",1.0000000000000001e+300\r\n")
    expect(.double(-2), resp2: "$2\r\n-2\r\n", resp3: ",-2\r\n")
  }
}

@Suite struct WriterTests {
  /// The hand-written bytes equal the value tree's, in both protocols.
  @Test(arguments: [RESPProtocolVersion.resp2, .resp3])
  func writerMatchesValues(version: RESPProtocolVersion) {
    var writer = RESPWriter(protocol: version, capacity: 0)
    writer.arrayHeader(3)
    Array("member\r\n".utf8).withUnsafeBytes { writer.bulk($0) }
    writer.arrayHeader(4)
    writer.bulk(UnsafeRawBufferPointer(start: nil, count: 0))
    writer.integer(0)
    writer.integer(Int.min)
    Array("-12.5".utf8).withUnsafeBytes { writer.formattedDouble($0) }
    writer.integer(4_069_885_360_207_904)
    let tree = RESPValue.array([
      .bulkString(ByteBuffer(string: "member\r\n")),
      .array([
        .bulkString(ByteBuffer()), .integer(0), .integer(Int.min), .formattedDouble("-12.5"),
      ]),
      .integer(4_069_885_360_207_904),
    ])
    var expected = ByteBuffer()
    tree.write(to: &expected, protocol: version)
    var written = ByteBuffer()
    writer.reply.write(to: &written, protocol: version)
    #expect(String(buffer: written) == String(buffer: expected))
  }

  /// Integers and lengths of every digit count, and payloads past the initial capacity.
  @Test func writerMatchesValuesAtEveryWidth() {
    var numbers: [Int] = [0, Int.max, Int.min, Int.min + 1]
    var power = 1
    for _ in 0..<18 {
      power *= 10
      numbers += [power - 1, power, -(power - 1), -power]
    }
    var writer = RESPWriter(protocol: .resp2, capacity: 1)
    var tree: [RESPValue] = []
    for (i, n) in numbers.enumerated() {
      writer.integer(n)
      tree.append(.integer(n))
      let payload = [UInt8](repeating: UInt8(i), count: i * 37)
      payload.withUnsafeBytes { writer.bulk($0) }
      tree.append(.bulkString(ByteBuffer(bytes: payload)))
    }
    var expected = ByteBuffer()
    for value in tree { value.write(to: &expected, protocol: .resp2) }
    var written = ByteBuffer()
    writer.reply.write(to: &written, protocol: .resp2)
    #expect(written == expected)
  }

  /// Every short payload length (copied as overlapping words up to 16 bytes) and every one- and
  /// two-digit number (written at once), against the text Swift prints for them.
  @Test func shortPayloadsAndSmallNumbers() {
    var writer = RESPWriter(protocol: .resp2, capacity: 1)
    var expected = ""
    for n in 0...40 {
      let payload = (0..<n).map { UInt8(ascii: "a") + UInt8(($0 * 7 + n) % 26) }
      payload.withUnsafeBytes { writer.bulk($0) }
      expected += "$\(n)\r\n" + String(decoding: payload, as: UTF8.self) + "\r\n"
    }
    for n in [0, 1, 9, 10, 11, 42, 99, 100, 101, 999, 1000, -1, -9, -10, -99, -100] {
      writer.integer(n)
      expected += ":\(n)\r\n"
    }
    var written = ByteBuffer()
    writer.reply.write(to: &written, protocol: .resp2)
    #expect(String(buffer: written) == expected)
  }

  /// Elements written into room reserved once are the bytes the element-by-element API writes,
  /// and a reused buffer starts empty.
  @Test(arguments: [RESPProtocolVersion.resp2, .resp3])
  func reservedRoomMatchesElements(version: RESPProtocolVersion) {
    var elementwise = RESPWriter(protocol: version, capacity: 1)
    var stale = ByteBuffer(string: "stale bytes")
    stale.moveReaderIndex(forwardBy: 3)
    var reserved = RESPWriter(protocol: version, reusing: stale)
    let names = ["", "a", String(repeating: "n", count: 200), "member\r\n"]
    var room = RESPWriter.headerRoom * 2 + RESPWriter.bulkRoom(4)
    for name in names { room += RESPWriter.bulkRoom(name.utf8.count) }
    elementwise.arrayHeader(names.count + 2)
    for name in names { Array(name.utf8).withUnsafeBytes { elementwise.bulk($0) } }
    elementwise.integer(-42)
    Array("-1.5".utf8).withUnsafeBytes { elementwise.formattedDouble($0) }
    reserved.reserving(room) { cursor in
      cursor.arrayHeader(names.count + 2)
      for name in names { Array(name.utf8).withUnsafeBytes { cursor.bulk($0) } }
      cursor.integer(-42)
      Array("-1.5".utf8).withUnsafeBytes { cursor.formattedDouble($0) }
    }
    #expect(reserved.buffer == elementwise.buffer)
    #expect(reserved.buffer.readableBytes < room)
  }
}
