import Keyspace
import NIOCore
import RESP

/// PING, ECHO, QUIT, HELLO, AUTH.
enum ConnectionCommands {
  static let all: [CommandSpec] = [
    CommandSpec("ping", arity: -1, flags: [.noAuth, .pubsubContext]) { call in
      guard call.arguments.count <= 2 else { return .error(RedisError.arity("ping")) }
      // A subscribed RESP2 connection reads every reply as a message: Redis answers as one.
      if call.session.subscriptions > 0 && !call.resp3 {
        return .array([
          .bulkString(ByteBuffer(string: "pong")),
          call.arguments.count == 2
            ? .bulkString(call.arguments.buffer(1)) : .bulkString(ByteBuffer()),
        ])
      }
      return call.arguments.count == 1
        ? .simpleString("PONG") : .bulkString(call.arguments.buffer(1))
    },
    CommandSpec("echo", arity: 2, flags: .noAuth) { call in .bulkString(call.arguments.buffer(1))
    },
    CommandSpec("quit", arity: -1, flags: [.noAuth, .pubsubContext]) { call in
      call.close = true
      return .simpleString("OK")
    },
    CommandSpec("reset", arity: 1, flags: [.noAuth, .pubsubContext], run: reset),
    CommandSpec("auth", arity: -2, flags: .noAuth, run: auth),
    CommandSpec("hello", arity: -1, flags: .noAuth, run: hello),
  ]

  /// RESET: the connection as it was when it opened (Redis's `clearClientConnectionState`):
  /// no subscriptions, RESP2, database 0, no name, signed out of any account, and
  /// authenticated only if no admin password is set.
  static func reset(_ call: inout Invocation) -> RESPValue {
    let hub = call.environment.pubsub
    for pattern in [false, true] {
      for name in hub.subscriptions(of: call.session.id, pattern: pattern) {
        _ = hub.unsubscribe(call.session.id, from: name, pattern: pattern)
      }
    }
    call.session.subscriptions = 0
    call.session.protocolVersion = .resp2
    call.session.db = 0
    call.session.name = nil
    call.session.signOut()
    call.session.authenticated = call.environment.requirePassword == nil
    call.environment.sessionChanged(call.session)
    return .simpleString("RESET")
  }

  /// AUTH [username] password. The user `default`'s password is --requirepass; any other user
  /// is an account's email, signed in by the accounts module.
  static func auth(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    guard args.count <= 3 else { return .error(RedisError.syntax) }
    if args.count == 2 && call.environment.requirePassword == nil {
      return .error(
        "ERR AUTH <password> called without any password configured for the default user. "
          + "Are you sure your configuration is correct?")
    }
    let user = args.count == 3 ? args.bytes(1) : Array("default".utf8)
    if user != Array("default".utf8), call.processor.accounts != nil {
      signIn(&call, email: args.string(1), password: args.string(2)) { _ in
        .simpleString("OK")
      }
      return .null
    }
    guard authenticate(call, user: user, password: args.bytes(args.count - 1)) else {
      return .error(RedisError.wrongPass)
    }
    call.session.authenticated = true
    call.session.signOut()
    return .simpleString("OK")
  }

  static func authenticate(_ call: Invocation, user: Bytes, password: Bytes) -> Bool {
    guard user == Array("default".utf8) else { return false }
    guard let expected = call.environment.requirePassword else { return true }
    return constantTimeEquals(Array(expected.utf8), password)
  }

  /// Signs an account in off the event loop; the connection runs nothing else meanwhile, and
  /// its session changes (by `change`, then to the account) as the reply (`reply`) arrives.
  static func signIn(
    _ call: inout Invocation, email: String, password: String,
    change: @escaping SessionUpdate = { _ in },
    reply: @escaping @Sendable (Session) -> RESPValue
  ) {
    guard let accounts = call.processor.accounts else { return }
    let session = call.session
    call.holdsConnection = true
    call.pending = { answer in
      accounts.signIn(email: email, password: password, address: session.client) { result in
        switch result {
        case .success(let account):
          var signedIn = session
          change(&signedIn)
          signedIn.signIn(account)
          answer(reply(signedIn)) { current in
            change(&current)
            current.signIn(account)
          }
        case .failure(let refused): answer(.error(refused.message))
        }
      }
    }
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
    var account: (email: String, password: String)?
    var j = next
    while j < args.count {
      let more = args.count - 1 - j
      if args.is(j, "auth") && more >= 2 {
        let user = args.bytes(j + 1)
        if user != Array("default".utf8), call.processor.accounts != nil {
          account = (args.string(j + 1), args.string(j + 2))
        } else {
          guard authenticate(call, user: user, password: args.bytes(j + 2)) else {
            return .error(RedisError.wrongPass)
          }
          call.session.authenticated = true
          call.session.signOut()
        }
        j += 2
      } else if args.is(j, "setname") && more >= 1 {
        if let error = ServerCommands.setName(&call, args.bytes(j + 1)) { return .error(error) }
        j += 1
      } else {
        return .error("ERR Syntax error in HELLO option '\(args.string(j))'")
      }
      j += 1
    }
    let protocolVersion: RESPProtocolVersion? = version.map { $0 == 3 ? .resp3 : .resp2 }
    if let account {
      signIn(
        &call, email: account.email, password: account.password,
        change: { session in if let protocolVersion { session.protocolVersion = protocolVersion } },
        reply: helloReply)
      return .null
    }
    // Unlike Redis, HELLO without AUTH is answered before sign-in: the account commands run
    // then, and clients (redis-py 8) open with HELLO 3.
    if let protocolVersion { call.session.protocolVersion = protocolVersion }
    return helloReply(call.session)
  }

  @Sendable static func helloReply(_ session: Session) -> RESPValue {
    func text(_ s: String) -> RESPValue { .bulkString(ByteBuffer(string: s)) }
    return .map([
      (text("server"), text("cardatlas")),
      (text("version"), text(ServerCommands.redisVersion)),
      (text("proto"), .integer(session.protocolVersion == .resp3 ? 3 : 2)),
      (text("id"), .integer(session.id)),
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
