import Keyspace
import NIOCore
import RESP
import Testing

@testable import Commands

@Suite("Hot replies written into a reused buffer")
struct ReplyReuseTests {
  final class Environment: ServerEnvironment {
    var requirePassword: String? { nil }
    func info(sections: [String]) -> String { "" }
    func clientList() -> String { "" }
    func clientInfo(id: Int) -> String { "" }
    func configGet(_ pattern: String) -> [(String, String)] { [] }
    func configSet(_ name: String, _ value: String) -> String? { nil }
    func resetStatistics() {}
    func backup(to path: String) throws {}
    func sessionChanged(_ session: Session) {}
    let pubsub = PubSubHub()
  }

  static func run(
    _ processor: CommandProcessor, _ session: inout Session, _ words: [String]
  ) -> RESPValue {
    processor.execute(Arguments(words.map { ByteBuffer(string: $0) }), session: &session).reply
  }

  static func storage(_ reply: RESPValue) -> UnsafeRawPointer? {
    guard case .encoded(let buffer) = reply else { return nil }
    return buffer.withUnsafeReadableBytes { $0.baseAddress }
  }

  static func bytes(_ reply: RESPValue, _ version: RESPProtocolVersion = .resp2) -> String {
    var out = ByteBuffer()
    reply.write(to: &out, protocol: version)
    return String(buffer: out)
  }

  /// A reply still held when the next search runs on the same thread keeps its own bytes, and
  /// every reply equals the one written element by element (WITHDIST takes that path); the expected replies are redis-server 7.0's.
  @Test func heldRepliesAreNotOverwritten() {
    let processor = CommandProcessor(
      keyspace: Keyspace(), log: MemoryOnly(), environment: Environment())
    var session = Session(id: 1, authenticated: true)
    _ = Self.run(
      processor, &session,
      [
        "GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
        "13.5", "38.0", String(repeating: "x", count: 300),
      ])
    let near = ["GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"]
    let first = Self.run(processor, &session, near + ["COUNT", "1"])
    let firstBytes = Self.bytes(first)
    #expect(firstBytes == "*1\r\n$7\r\nCatania\r\n")
    var held: [RESPValue] = [first]
    for count in 1...3 {
      held.append(Self.run(processor, &session, near + ["COUNT", String(count)]))
    }
    #expect(Self.bytes(held[0]) == firstBytes)
    let long = "$300\r\n" + String(repeating: "x", count: 300) + "\r\n"
    #expect(Self.bytes(held[3]) == "*3\r\n$7\r\nCatania\r\n" + long + "$7\r\nPalermo\r\n")
    // With the held replies dropped (none recycled), the next reply is still whole and right.
    held.removeAll()
    let again = Self.run(processor, &session, near + ["COUNT", "2", "WITHDIST"])
    #expect(
      Self.bytes(again)
        == "*2\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n*2\r\n" + long + "$8\r\n172.8860\r\n")
  }

  /// A recycled reply's storage is the next reply's, as the server hands each back once written;
  /// one recycled while a copy is still held is not written over.
  @Test func recycledRepliesAreReusedUnlessHeld() {
    let processor = CommandProcessor(
      keyspace: Keyspace(), log: MemoryOnly(), environment: Environment())
    var session = Session(id: 1, authenticated: true)
    _ = Self.run(
      processor, &session,
      ["GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"])
    let near = ["GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"]
    let first = processor.execute(
      Arguments((near + ["COUNT", "1"]).map { ByteBuffer(string: $0) }), session: &session)
    let firstStorage = Self.storage(first.reply)
    #expect(firstStorage != nil)
    (consume first).recycle()
    let second = Self.run(processor, &session, near + ["COUNT", "2"])
    #expect(Self.storage(second) == firstStorage)
    #expect(Self.bytes(second) == "*2\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n")

    let held = second
    Outcome(reply: second).recycle()
    let third = Self.run(processor, &session, near + ["COUNT", "1"])
    #expect(Self.bytes(held) == "*2\r\n$7\r\nCatania\r\n$7\r\nPalermo\r\n")
    #expect(Self.bytes(third) == "*1\r\n$7\r\nCatania\r\n")
  }
}
