import Keyspace
import NIOCore
import RESP

/// PING, ECHO, QUIT, HELLO, AUTH.
enum ConnectionCommands {
  static let all: [CommandSpec] = [
    CommandSpec("ping", arity: -1) { call in
      switch call.arguments.count {
      case 1: return .simpleString("PONG")
      case 2: return .bulkString(call.arguments.buffer(1))
      default: return .error(RedisError.arity("ping"))
      }
    },
    CommandSpec("echo", arity: 2) { call in .bulkString(call.arguments.buffer(1)) },
    CommandSpec("quit", arity: -1, flags: .noAuth) { call in
      call.close = true
      return .simpleString("OK")
    },
    CommandSpec("auth", arity: -2, flags: .noAuth, run: auth),
    CommandSpec("hello", arity: -1, flags: .noAuth, run: hello),
  ]

  /// AUTH [username] password. The only user is `default`, whose password is --requirepass.
  static func auth(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    guard args.count <= 3 else { return .error(RedisError.syntax) }
    if args.count == 2 && call.environment.requirePassword == nil {
      return .error(
        "ERR AUTH <password> called without any password configured for the default user. "
          + "Are you sure your configuration is correct?")
    }
    let user = args.count == 3 ? args.bytes(1) : Array("default".utf8)
    guard authenticate(call, user: user, password: args.bytes(args.count - 1)) else {
      return .error(RedisError.wrongPass)
    }
    call.session.authenticated = true
    return .simpleString("OK")
  }

  static func authenticate(_ call: Invocation, user: Bytes, password: Bytes) -> Bool {
    guard user == Array("default".utf8) else { return false }
    guard let expected = call.environment.requirePassword else { return true }
    return constantTimeEquals(Array(expected.utf8), password)
  }

  /// HELLO [protover [AUTH username password] [SETNAME clientname]].
  static func hello(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    var version: Int?
    var next = 1
    if args.count >= 2 {
      guard let v = args.integer(1) else {
        return .error("ERR Protocol version is not an integer or out of range")
      }
      guard v == 2 || v == 3 else { return .error("NOPROTO unsupported protocol version") }
      version = v
      next = 2
    }
    var j = next
    while j < args.count {
      let more = args.count - 1 - j
      if args.is(j, "auth") && more >= 2 {
        guard authenticate(call, user: args.bytes(j + 1), password: args.bytes(j + 2)) else {
          return .error(RedisError.wrongPass)
        }
        call.session.authenticated = true
        j += 2
      } else if args.is(j, "setname") && more >= 1 {
        if let error = ServerCommands.setName(&call, args.bytes(j + 1)) { return .error(error) }
        j += 1
      } else {
        return .error("ERR Syntax error in HELLO option '\(args.string(j))'")
      }
      j += 1
    }
    guard call.session.authenticated else {
      return .error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
          + "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
          + "select the RESP protocol version at the same time")
    }
    if let version { call.session.protocolVersion = version == 3 ? .resp3 : .resp2 }
    func text(_ s: String) -> RESPValue { .bulkString(ByteBuffer(string: s)) }
    return .map([
      (text("server"), text("cardatlas")),
      (text("version"), text(ServerCommands.redisVersion)),
      (text("proto"), .integer(call.session.protocolVersion == .resp3 ? 3 : 2)),
      (text("id"), .integer(call.session.id)),
      (text("mode"), text("standalone")),
      (text("role"), text("master")),
      (text("modules"), .array([])),
    ])
  }

  /// Compares without an early exit, so the time taken says nothing about the password.
  static func constantTimeEquals(_ a: Bytes, _ b: Bytes) -> Bool {
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for i in 0..<max(a.count, b.count) {
      difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
    }
    return difference == 0
  }
}
