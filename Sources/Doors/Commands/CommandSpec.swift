import Keyspace
import RESP

/// One command: its name, Redis's arity rule and flags, and what it does. Redis's commands are
/// in `CommandTable`; other modules bring theirs to `CommandProcessor.init`.
public struct CommandSpec: Sendable {
  public struct Flags: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Changes data: runs under the write lock, its changes are made durable.
    public static let write = Flags(rawValue: 1)
    /// Allowed before any sign-in (and to a signed-in account).
    public static let noAuth = Flags(rawValue: 2)
    /// A signed-in account may run it (without this, an account gets NOPERM).
    public static let account = Flags(rawValue: 4)
    /// Only a signed-in account runs it: it acts as that account (the domain commands).
    public static let needsAccount: Flags = [Flags(rawValue: 8), .account]
    /// Runs on a RESP2 connection that has subscriptions (Redis's subscribed context).
    public static let pubsubContext = Flags(rawValue: 16)
  }

  /// Lower case, as in Redis's errors; `container|sub` for subcommands.
  public let name: String
  /// Redis's arity: n means exactly n arguments (name included), -n at least n.
  public let arity: Int
  public let flags: Flags
  let run: @Sendable (inout Invocation) -> RESPValue
  /// By the second word's name, lower case.
  let subcommands: [String: CommandSpec]

  public init(
    _ name: String, arity: Int, flags: Flags = [],
    run: @escaping @Sendable (inout Invocation) -> RESPValue
  ) {
    self.name = name
    self.arity = arity
    self.flags = flags
    self.run = run
    subcommands = [:]
  }

  /// A container command (CLIENT, CONFIG...) whose second word picks a subcommand.
  /// `run` answers the bare command where Redis allows one (arity -1: COMMAND).
  public init(
    container name: String, arity: Int = -2, flags: Flags = [], _ subcommands: [CommandSpec],
    run: @escaping @Sendable (inout Invocation) -> RESPValue = { _ in .error(RedisError.syntax) }
  ) {
    self.name = name
    self.arity = arity
    self.flags = flags
    self.run = run
    self.subcommands = Dictionary(
      uniqueKeysWithValues: subcommands.map { (String($0.name.split(separator: "|")[1]), $0) })
  }

  func acceptsArgumentCount(_ n: Int) -> Bool {
    arity > 0 ? n == arity : n >= -arity
  }
}

/// Everything a command runs with.
public struct Invocation {
  public let arguments: Arguments
  public var session: Session
  /// Lent unretained: the processor holds both, and an invocation lives only while it runs.
  /// (Their reference counts are shared by every event-loop thread: counting them on each
  /// command made the threads take the same cache line from each other.)
  let keyspace: Unmanaged<Keyspace>
  unowned(unsafe) let environment: ServerEnvironment
  /// Every command the processor answers, for COMMAND.
  unowned(unsafe) let processor: CommandProcessor
  var commits: [Commit] = []
  var close = false
  var deferred: (@Sendable () -> RESPValue)?
  /// Set by a command whose reply comes later, from another thread (a domain write answered
  /// once it is durable): see `Outcome.pending`.
  public var pending: PendingReply?
  /// No later command on the connection runs until `pending` has answered (a sign-in, whose
  /// reply changes the session).
  public var holdsConnection = false
  /// For a `pending` reply that may be large (a document, a photo, a QR code): the bytes it
  /// will hold until the client takes it, the memory making it takes included. The connection
  /// counts them against its output limits and `maxmemory-clients` before the work starts,
  /// and starts no more while they are over the limits, as if the reply were already made.
  public var replyBytes = 0

  /// The commands' environment, for modules that bring commands.
  public var server: ServerEnvironment { environment }

  var db: Int { session.db }
  var resp3: Bool { session.protocolVersion == .resp3 }

  /// Runs a read under the shared lock.
  func read<T>(_ body: (Database) throws -> T) rethrows -> T {
    try keyspace._withUnsafeGuaranteedRef { try $0.read(db: session.db, body) }
  }

  /// Runs a write under the exclusive lock, its changes handed to the processor's log in the
  /// order writes are made; the reply waits for them to be durable.
  mutating func write<T>(_ body: (inout Keyspace.Writer) throws -> T) rethrows -> T {
    let (result, commit) = try keyspace._withUnsafeGuaranteedRef {
      try $0.write(log: processor.log, body)
    }
    if let commit { commits.append(commit) }
    return result
  }
}
