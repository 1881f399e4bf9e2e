/// Redis 7.0's error replies, word for word: clients and tests match on them.
public enum RedisError {
  public static let syntax = "ERR syntax error"
  public static let wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
  public static let noAuth = "NOAUTH Authentication required."
  public static let notFloat = "ERR value is not a valid float"
  public static let notInteger = "ERR value is not an integer or out of range"
  public static let wrongPass = "WRONGPASS invalid username-password pair or user is disabled."
  public static let dbIndexOutOfRange = "ERR DB index is out of range"

  /// A domain command run without an account signed in (the admin acts as no account).
  public static let needsAccount =
    "NOAUTH sign in to an account first (AUTH <email> <password> or SESSION.OPEN)"

  /// A connection whose sign-in ended elsewhere: the password changed or was reset, the account
  /// was deleted, or its session was closed.
  public static let signedOut =
    "NOAUTH signed out: the password changed, the account was deleted or the session was closed"

  /// Redis's NOPERM, for a signed-in account asking for the keyspace or the server.
  public static func accountNoPerm(_ name: String) -> String {
    "NOPERM this account has no permissions to run the '\(name)' command"
  }

  public static func arity(_ name: String) -> String {
    "ERR wrong number of arguments for '\(name)' command"
  }

  /// `commandCheckExistence`: the name and up to 128 bytes of quoted arguments.
  public static func unknownCommand(_ arguments: Arguments) -> String {
    var args = ""
    var length = 0
    var i = 1
    while i < arguments.count && length < 128 {
      let text = arguments.buffer(i).readableBytesView.prefix(128 - length)
      let quoted = "'" + String(decoding: text, as: UTF8.self) + "' "
      args += quoted
      length += text.count + 3
      i += 1
    }
    let name = String(decoding: arguments.buffer(0).readableBytesView.prefix(128), as: UTF8.self)
    return sanitize("ERR unknown command '\(name)', with args beginning with: \(args)")
  }

  public static func unknownSubcommand(_ arguments: Arguments) -> String {
    let sub = String(decoding: arguments.buffer(1).readableBytesView.prefix(128), as: UTF8.self)
    return sanitize(
      "ERR unknown subcommand '\(sub)'. Try \(arguments.string(0).uppercased()) HELP.")
  }

  /// Error replies are one line: Redis turns CR and LF into spaces.
  static func sanitize(_ text: String) -> String {
    String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
  }
}
