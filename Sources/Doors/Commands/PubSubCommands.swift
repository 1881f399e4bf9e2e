import Keyspace
import NIOCore
import RESP

/// SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, PUBSUB: Redis 7.0's replies.
/// Channels under `ChannelAccess.accountNamespaces` belong to accounts: see `ChannelAccess`.
enum PubSubCommands {
  static let all: [CommandSpec] = [
    CommandSpec("subscribe", arity: -2, flags: [.account, .pubsubContext]) { call in
      subscribe(&call, pattern: false)
    },
    CommandSpec("psubscribe", arity: -2, flags: [.account, .pubsubContext]) { call in
      subscribe(&call, pattern: true)
    },
    CommandSpec("unsubscribe", arity: -1, flags: [.account, .pubsubContext]) { call in
      unsubscribe(&call, pattern: false)
    },
    CommandSpec("punsubscribe", arity: -1, flags: [.account, .pubsubContext]) { call in
      unsubscribe(&call, pattern: true)
    },
    CommandSpec("publish", arity: 3) { call in
      let channel = call.arguments.bytes(1)
      guard ChannelAccess.isOpen(channel, call) else { return .error(ChannelAccess.noPerm) }
      let hub = call.environment.pubsub
      let message = call.arguments.buffer(2)
      if let maximum = hub.maximumMessageBytes, channel.count + message.readableBytes > maximum {
        return .error(
          "ERR a message published to the other nodes may be at most \(maximum) bytes with its channel"
        )
      }
      return .integer(hub.publish(message, to: channel))
    },
    CommandSpec(
      container: "pubsub",
      [
        CommandSpec("pubsub|channels", arity: -2) { call in
          guard call.arguments.count <= 3 else { return .error(wrongArguments("CHANNELS")) }
          let pattern = call.arguments.count == 3 ? call.arguments.bytes(2) : nil
          let channels = call.environment.pubsub.channels(matching: pattern)
            .filter { ChannelAccess.isOpen($0, call) }
          return .array(channels.map { .bulkString(ByteBuffer(bytes: $0)) })
        },
        CommandSpec("pubsub|numsub", arity: -2) { call in
          var reply: [RESPValue] = []
          for i in 2..<call.arguments.count {
            let channel = call.arguments.bytes(i)
            let count =
              ChannelAccess.isOpen(channel, call)
              ? call.environment.pubsub.subscriberCount(channel) : 0
            reply += [.bulkString(call.arguments.buffer(i)), .integer(count)]
          }
          return .array(reply)
        },
        CommandSpec("pubsub|numpat", arity: 2) { call in
          .integer(call.environment.pubsub.patternCount)
        },
        CommandSpec("pubsub|help", arity: 2) { _ in
          .array(help.map { .simpleString($0) })
        },
      ]),
  ]

  static let help = [
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "HELP",
    "    Prints this help.",
  ]

  static func wrongArguments(_ sub: String) -> String {
    "ERR unknown subcommand or wrong number of arguments for '\(sub)'. Try PUBSUB HELP."
  }

  /// One confirmation per name, each with the connection's count after it. Every name is
  /// checked first: one refused refuses the command, as Redis's ACL does.
  static func subscribe(_ call: inout Invocation, pattern: Bool) -> RESPValue {
    let names = (1..<call.arguments.count).map { call.arguments.bytes($0) }
    for name in names where !ChannelAccess.maySubscribe(to: name, pattern: pattern, call) {
      return .error(ChannelAccess.noPerm)
    }
    let kind = pattern ? "psubscribe" : "subscribe"
    var frames: [RESPValue] = []
    for name in names {
      let count = call.environment.pubsub.subscribe(call.session.id, to: name, pattern: pattern)
      call.session.subscriptions = count
      frames.append(confirmation(kind, name, count))
    }
    return encoded(frames, call.session.protocolVersion)
  }

  /// Without names, every channel (or pattern) the connection has; with none, one
  /// confirmation naming nothing.
  static func unsubscribe(_ call: inout Invocation, pattern: Bool) -> RESPValue {
    let hub = call.environment.pubsub
    let id = call.session.id
    let kind = pattern ? "punsubscribe" : "unsubscribe"
    var names = (1..<call.arguments.count).map { call.arguments.bytes($0) }
    if names.isEmpty { names = hub.subscriptions(of: id, pattern: pattern) }
    guard !names.isEmpty else {
      return encoded(
        [confirmation(kind, nil, call.session.subscriptions)], call.session.protocolVersion)
    }
    var frames: [RESPValue] = []
    for name in names {
      let count = hub.unsubscribe(id, from: name, pattern: pattern)
      call.session.subscriptions = count
      frames.append(confirmation(kind, name, count))
    }
    return encoded(frames, call.session.protocolVersion)
  }

  static func confirmation(_ kind: String, _ name: Bytes?, _ count: Int) -> RESPValue {
    .push([
      .bulkString(ByteBuffer(string: kind)),
      name.map { .bulkString(ByteBuffer(bytes: $0)) } ?? .null,
      .integer(count),
    ])
  }

  /// Several frames as one reply, so that they keep their place among the replies.
  static func encoded(_ frames: [RESPValue], _ version: RESPProtocolVersion) -> RESPValue {
    var buffer = ByteBuffer()
    for frame in frames { frame.write(to: &buffer, protocol: version) }
    return .encoded(buffer)
  }
}

/// Who may hear and publish what. Channels in an account namespace (`wallet:<id>`,
/// `account:<id>`) carry what the domain publishes for that account: only the account itself
/// (signed in on the connection) and the admin (signed in with `--requirepass`'s password)
/// hear them, and only the admin publishes to them. Without `--requirepass` there is no admin:
/// the other channels behave as Redis's, but an account's stay its own. A signed-in account
/// hears its own two channels and nothing else, and subscribes to no pattern.
public enum ChannelAccess {
  static let accountNamespaces = ["wallet:", "account:"].map { Array($0.utf8) }

  /// Redis 7.0's ACL error for channels.
  static let noPerm =
    "NOPERM this user has no permissions to access one of the channels used as arguments"

  static func isAdmin(_ call: Invocation) -> Bool {
    isAdmin(call.session, requirePassword: call.environment.requirePassword)
  }

  static func isAdmin(_ session: Session, requirePassword: String?) -> Bool {
    session.account == nil && session.authenticated && requirePassword != nil
  }

  static func isOwn(_ channel: Bytes, account: Int64) -> Bool {
    accountNamespaces.contains { $0 + Array(String(account).utf8) == channel }
  }

  /// Whether the connection may hear a message on `channel` now, checked again as each one is
  /// delivered: a subscription outlives a change of who is signed in on the connection (AUTH
  /// as another account, SESSION.CLOSE), never what that account may read.
  public static func mayHear(
    _ channel: Bytes, _ session: Session, requirePassword: @autoclosure () -> String?
  ) -> Bool {
    guard inAccountNamespace(channel) else { return true }
    if let account = session.account { return isOwn(channel, account: account) }
    return isAdmin(session, requirePassword: requirePassword())
  }

  static func inAccountNamespace(_ channel: Bytes) -> Bool {
    accountNamespaces.contains { channel.starts(with: $0) }
  }

  static func maySubscribe(to name: Bytes, pattern: Bool, _ call: Invocation) -> Bool {
    if let account = call.session.account { return !pattern && isOwn(name, account: account) }
    if isAdmin(call) { return true }
    return pattern
      ? !accountNamespaces.contains { globCouldMatch(name, startingWith: $0) }
      : !inAccountNamespace(name)
  }

  /// Whether the caller may publish to the channel, or see (PUBSUB CHANNELS, NUMSUB) who
  /// listens to it: whether an account is listening is not for others to see.
  static func isOpen(_ channel: Bytes, _ call: Invocation) -> Bool {
    isAdmin(call) || !inAccountNamespace(channel)
  }
}
