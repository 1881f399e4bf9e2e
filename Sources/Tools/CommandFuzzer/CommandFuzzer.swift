import Commands
import Foundation
import Keyspace
import NIOCore
import RESP

/// The request parser and the command layer fuzzed together, as a connection drives them: an
/// input is a client's byte stream, framed into commands that run on an in-memory keyspace, each
/// reply encoded as the connection would send it. Built for libFuzzer by `make fuzz`
/// (`-sanitize=fuzzer,address -D LIBFUZZER`); a plain build is a replayer of saved inputs
/// (`CommandFuzzer crash-…`), for a crash's Swift backtrace without the sanitizers.
///
/// Besides crashes, sanitizer reports and libFuzzer's time and memory limits, an input fails
/// when:
/// - the parser frames the bytes differently when they arrive in pieces: a command may be split
///   at any byte;
/// - a reply is not exactly one well-formed RESP value, in RESP2 or RESP3 (a (P)(UN)SUBSCRIBE's
///   is one or more: a confirmation per name);
/// - the same command errs, or errs differently, on a RESP2 and a RESP3 connection (but for
///   the commands a subscribed RESP2 connection refuses, as Redis).
enum CommandFuzzer {
  /// Small enough that the inputs (`-max_len`, 4 KiB) reach every limit's error.
  static let limits = RESPLimits(maxInlineLength: 1024, maxBulkLength: 2048, maxArrayLength: 512)
  /// Commands run per input, so that one input's time stays bounded.
  static let maxCommands = 64

  static func run(_ input: UnsafeRawBufferPointer) {
    let whole = Framing(input, chunks: [input.count])
    let pieces = Framing(input, chunks: [1, 2, 3, 5, 8, 13])
    guard whole == pieces else {
      fatalError("framing depends on how the bytes arrive: \(whole) against \(pieces)")
    }
    let resp2 = Connection(protocol: .resp2)
    let resp3 = Connection(protocol: .resp3)
    for command in whole.commands.prefix(maxCommands) {
      let subscribed = resp2.session.subscriptions > 0
      let a = resp2.run(command)
      let b = resp3.run(command)
      guard a == b || (subscribed && a?.hasPrefix("ERR Can't execute") == true) else {
        fatalError("\(command.debugText): RESP2 \(a ?? "no error"), RESP3 \(b ?? "no error")")
      }
      if resp2.closed || resp3.closed { break }
    }
  }

  /// The commands a byte stream holds, up to the protocol error that ends it, if any.
  struct Framing: Equatable, CustomStringConvertible {
    var commands: [RESPCommand] = []
    var arguments: [[[UInt8]]] = []
    var error: String?

    /// Reads `input` fed to the parser in pieces of the given sizes, taken in turn.
    init(_ input: UnsafeRawBufferPointer, chunks: [Int]) {
      var parser = RESPRequestParser(limits: CommandFuzzer.limits)
      var offset = 0
      var turn = 0
      repeat {
        let size = min(max(chunks[turn % chunks.count], 1), input.count - offset)
        parser.append(ByteBuffer(bytes: input[offset..<offset + size]))
        offset += size
        turn += 1
        do {
          while let command = try parser.next() {
            commands.append(command)
            arguments.append(command.map { Array($0.readableBytesView) })
          }
        } catch {
          self.error = error.message
          return
        }
      } while offset < input.count
    }

    static func == (a: Framing, b: Framing) -> Bool {
      a.arguments == b.arguments && a.error == b.error
    }

    var description: String { "\(arguments.count) commands, \(error ?? "no error")" }
  }

  /// One client's session on its own keyspace, which starts with a few keys for the commands to
  /// find.
  final class Connection {
    let processor: CommandProcessor
    var session = Session(id: 1, authenticated: true)
    var closed = false

    static let preload: [[String]] = [
      [
        "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
        "Catania",
      ],
      [
        "GEOADD", "g", "0", "0", "origin", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw",
        "179.9999", "0", "east", "-0.0001", "0.0001", "near", "2.35", "48.85", "paris",
      ],
      ["SET", "s", "value"],
    ]

    init(protocol version: RESPProtocolVersion) {
      // An environment of its own: SUBSCRIBE's subscriptions stick, so that the subscribed
      // context is reached, and end with the connection; messages go nowhere.
      let environment = Environment()
      environment.pubsub.connect(session.id) { _ in }
      processor = CommandProcessor(
        keyspace: Keyspace(), log: MemoryOnly(), environment: environment)
      session.protocolVersion = version
      for words in Self.preload {
        _ = processor.execute(Arguments(words.map { ByteBuffer(string: $0) }), session: &session)
      }
    }

    /// Runs the command as the server does and checks its reply; returns the reply's error
    /// text, if it is an error.
    func run(_ command: RESPCommand) -> String? {
      var outcome = processor.execute(Arguments(command), session: &session)
      if let work = outcome.deferred { outcome.reply = work() }
      closed = outcome.close
      var error: String?
      for version in [session.protocolVersion, .resp2, .resp3] {
        var bytes = ByteBuffer()
        outcome.reply.write(to: &bytes, protocol: version)
        let reply = Self.values(bytes, command)[0]
        if version == session.protocolVersion, case .error(let text) = reply { error = text }
      }
      outcome.recycle()
      return error
    }

    static let confirmedPerName: Set<String> = [
      "subscribe", "psubscribe", "unsubscribe", "punsubscribe",
    ]

    /// The RESP values `bytes` holds: one, or one or more for a (P)(UN)SUBSCRIBE; stops the
    /// fuzzer if they hold anything else.
    static func values(_ bytes: ByteBuffer, _ command: RESPCommand) -> [RESPValue] {
      var parser = RESPReplyParser()
      parser.append(bytes)
      do {
        var values: [RESPValue] = []
        while let value = try parser.next() { values.append(value) }
        let name = String(decoding: command[0].readableBytesView, as: UTF8.self).lowercased()
        guard parser.bufferedByteCount == 0,
          values.count == 1
            || (!values.isEmpty && confirmedPerName.contains(name))
        else {
          fatalError("\(command.debugText): reply is not one RESP value: \(String(buffer: bytes))")
        }
        return values
      } catch {
        fatalError("\(command.debugText): malformed reply (\(error)): \(String(buffer: bytes))")
      }
    }
  }

  /// What INFO, CLIENT and CONFIG report here: a few fixed values, CONFIG GET's patterns matched
  /// as the server matches them; BACKUP is refused (a fuzzer writes no files).
  final class Environment: ServerEnvironment {
    static let parameters = [
      ("bind", "127.0.0.1"), ("port", "7878"), ("databases", "16"), ("timeout", "0"),
      ("maxclients", "10000"), ("requirepass", ""), ("appendonly", "yes"),
    ]

    struct BackupRefused: Error {}

    var requirePassword: String? { nil }
    func info(sections: [String]) -> String { "# Server\r\nredis_version:7.0.15\r\n" }
    func clientList() -> String { "id=1 addr=127.0.0.1:40000 name= db=0 cmd=client|list\n" }
    func clientInfo(id: Int) -> String { "id=\(id) addr=127.0.0.1:40000 name= db=0\n" }
    func configGet(_ pattern: String) -> [(String, String)] {
      Self.parameters.filter {
        globMatches(Array(pattern.utf8), Array($0.0.utf8), ignoringCase: true)
      }
    }
    func configSet(_ name: String, _ value: String) -> String? {
      Self.parameters.contains { $0.0 == name } ? nil : "ERR Unknown option '\(name)'"
    }
    func resetStatistics() {}
    func backup(to path: String) throws { throw BackupRefused() }
    func sessionChanged(_ session: Session) {}
    let pubsub = PubSubHub()
  }
}

extension RESPCommand {
  /// The command's words, quoted, for a failure's message.
  var debugText: String {
    map { "\"" + String(decoding: $0.readableBytesView.prefix(64), as: UTF8.self) + "\"" }
      .joined(separator: " ")
  }
}

/// Under libFuzzer, hands the process to its driver; built plainly, runs each file named on the
/// command line as one input.
@main
struct Main {
  static func main() throws {
    #if LIBFUZZER
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      exit(runFuzzerDriver(&argc, &argv, fuzzerTestOneInput))
    #else
      for path in CommandLine.arguments.dropFirst() {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.withUnsafeBytes { CommandFuzzer.run($0) }
        print("ran \(path) (\(bytes.count) bytes): no failure")
      }
    #endif
  }
}

#if LIBFUZZER
  @_cdecl("LLVMFuzzerTestOneInput")
  func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    CommandFuzzer.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
  }

  /// libFuzzer's `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*)(const uint8_t *,
  /// size_t))`. SwiftPM names an executable's entry point itself (`main` is made an alias of it),
  /// so libFuzzer's own `main` is never linked in: this one calls its driver instead.
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt
#endif
