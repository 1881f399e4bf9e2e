import Keyspace
import NIOCore
import RESP

/// INFO, COMMAND, CLIENT, CONFIG, BACKUP, and FUNCTION FLUSH and DEBUG answered harmlessly so
/// Redis's own test tooling can drive the server.
enum ServerCommands {
  /// The Redis version whose behaviour CardAtlas reproduces, as HELLO and INFO report it.
  static let redisVersion = "7.0.15"

  static let all: [CommandSpec] = [
    CommandSpec("info", arity: -1) { call in
      let sections = (1..<call.arguments.count).map { call.arguments.lowercased($0) }
      return .verbatimString(format: "txt", text: call.environment.info(sections: sections))
    },
    CommandSpec(
      container: "command", arity: -1,
      [
        CommandSpec("command|count", arity: 2) { call in .integer(call.processor.specs.count) },
        CommandSpec("command|list", arity: -2) { call in
          .array(call.processor.specs.map { .bulkString(ByteBuffer(string: $0.name)) })
        },
        CommandSpec("command|info", arity: -2) { call in
          let names = (2..<call.arguments.count).map { call.arguments.lowercased($0) }
          return .array(
            names.map { name in
              call.processor.specs.first { $0.name == name }.map(info) ?? .nullArray
            }
          )
        },
        CommandSpec("command|docs", arity: -2) { _ in .map([]) },
      ]
    ) { call in .array(call.processor.specs.map(info)) },
    CommandSpec(
      container: "client",
      [
        CommandSpec("client|id", arity: 2, flags: .account) { call in .integer(call.session.id) },
        CommandSpec("client|getname", arity: 2, flags: .account) { call in
          call.session.name.map { .bulkString(ByteBuffer(string: $0)) } ?? .null
        },
        CommandSpec("client|setname", arity: 3, flags: .account) { call in
          if let error = setName(&call, call.arguments.bytes(2)) { return .error(error) }
          return .simpleString("OK")
        },
        CommandSpec("client|list", arity: -2) { call in
          .verbatimString(format: "txt", text: call.environment.clientList())
        },
        CommandSpec("client|info", arity: 2, flags: .account) { call in
          .verbatimString(format: "txt", text: call.environment.clientInfo(id: call.session.id))
        },
      ]),
    CommandSpec(
      container: "config",
      [
        CommandSpec("config|get", arity: -3) { call in
          var pairs: [(key: RESPValue, value: RESPValue)] = []
          var seen = Set<String>()
          for i in 2..<call.arguments.count {
            for (name, value) in call.environment.configGet(call.arguments.string(i))
            where seen.insert(name).inserted {
              pairs.append(
                (.bulkString(ByteBuffer(string: name)), .bulkString(ByteBuffer(string: value))))
            }
          }
          return .map(pairs)
        },
        CommandSpec("config|set", arity: -4) { call in
          let args = call.arguments
          guard (args.count - 2) % 2 == 0 else { return .error(RedisError.arity("config|set")) }
          for i in stride(from: 2, to: args.count, by: 2) {
            if let error = call.environment.configSet(args.lowercased(i), args.string(i + 1)) {
              return .error(error)
            }
          }
          return .simpleString("OK")
        },
        CommandSpec("config|resetstat", arity: 2) { call in
          call.environment.resetStatistics()
          return .simpleString("OK")
        },
      ]),
    CommandSpec(
      container: "function",
      [CommandSpec("function|flush", arity: -2) { _ in .simpleString("OK") }]),
    CommandSpec("debug", arity: -2) { _ in .simpleString("OK") },
    CommandSpec("backup", arity: 2) { call in
      let path = call.arguments.string(1)
      let environment = call.environment
      call.deferred = {
        do {
          try environment.backup(to: path)
          return .simpleString("OK")
        } catch {
          return .error("ERR backup failed: \(error)")
        }
      }
      return .simpleString("OK")
    },
  ]

  /// COMMAND INFO's entry: name, arity, flags, first key, last key, step, ACL categories,
  /// tips, key specs, subcommands.
  static func info(_ spec: CommandSpec) -> RESPValue {
    var flags: [RESPValue] = []
    if spec.flags.contains(.write) { flags.append(.simpleString("write")) }
    if spec.flags.contains(.noAuth) { flags.append(.simpleString("no_auth")) }
    return .array([
      .bulkString(ByteBuffer(string: spec.name)), .integer(spec.arity), .set(flags),
      .integer(0), .integer(0), .integer(0), .set([]), .set([]), .array([]),
      .array(spec.subcommands.values.sorted { $0.name < $1.name }.map(info)),
    ])
  }

  /// CLIENT SETNAME's rule: printable ASCII without spaces; an empty name clears it.
  static func setName(_ call: inout Invocation, _ name: Bytes) -> String? {
    guard name.allSatisfy({ $0 > 32 && $0 < 127 }) else {
      return "ERR Client names cannot contain spaces, newlines or special characters."
    }
    call.session.name = name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    call.environment.sessionChanged(call.session)
    return nil
  }
}
