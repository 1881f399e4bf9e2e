import Keyspace
import RESP

/// Runs commands as Redis 7.0's `processCommand` does: look the command up, check its arity,
/// check authentication, then run it.
public final class CommandProcessor: Sendable {
  public let keyspace: Keyspace
  /// Where the keyspace's writes are made durable.
  let log: any ChangeLog
  let environment: ServerEnvironment
  /// Entries lent without a retain (`entries` keeps them): the event-loop threads would
  /// otherwise write each entry's shared reference count on every command.
  private let table: [Keyword: Unmanaged<Entry>]
  private let entries: [Entry]
  /// Every command's name, subcommands included, by `Outcome.commandID`.
  public let commandNames: [String]
  /// The commands answered: Redis's, then those the processor was given.
  let specs: [CommandSpec]
  /// Signs accounts in through AUTH and HELLO, when an accounts module is there.
  let accounts: (any AccountSignIn)?

  /// A command as looked up: shared, so that finding one copies no fields.
  private final class Entry: Sendable {
    let spec: CommandSpec
    let id: Int
    let subcommands: [Keyword: Unmanaged<Entry>]

    init(_ spec: CommandSpec, names: inout [String], entries: inout [Entry]) {
      self.spec = spec
      id = names.count
      names.append(spec.name)
      var subcommands: [Keyword: Unmanaged<Entry>] = [:]
      for (name, sub) in spec.subcommands {
        let entry = Entry(sub, names: &names, entries: &entries)
        entries.append(entry)
        subcommands[Keyword(name)] = .passUnretained(entry)
      }
      self.subcommands = subcommands
    }
  }

  /// Answers Redis's commands and `commands`, which other modules bring; a name may be used
  /// once. Writes to `keyspace` are made durable through `log`.
  public init(
    keyspace: Keyspace, log: any ChangeLog, environment: ServerEnvironment,
    commands: [CommandSpec] = [], accounts: (any AccountSignIn)? = nil
  ) {
    self.keyspace = keyspace
    self.log = log
    self.environment = environment
    self.accounts = accounts
    specs = CommandTable.all + commands
    var names: [String] = []
    var entries: [Entry] = []
    var table: [Keyword: Unmanaged<Entry>] = [:]
    for spec in specs {
      let entry = Entry(spec, names: &names, entries: &entries)
      entries.append(entry)
      let previous = table.updateValue(.passUnretained(entry), forKey: Keyword(spec.name))
      precondition(previous == nil, "two commands named \(spec.name)")
    }
    self.table = table
    self.entries = entries
    commandNames = names
  }

  /// Runs one command for a connection. `arguments` is never empty.
  public func execute(_ arguments: Arguments, session: inout Session) -> Outcome {
    guard var lent = table[arguments.keyword(0)] else {
      return Outcome(reply: .error(RedisError.unknownCommand(arguments)))
    }
    if lent._withUnsafeGuaranteedRef({ !$0.subcommands.isEmpty }), arguments.count >= 2 {
      guard let sub = lent._withUnsafeGuaranteedRef({ $0.subcommands[arguments.keyword(1)] })
      else {
        return Outcome(reply: .error(RedisError.unknownSubcommand(arguments)))
      }
      lent = sub
    }
    return lent._withUnsafeGuaranteedRef { run($0, arguments, &session) }
  }

  private func run(_ entry: Entry, _ arguments: Arguments, _ session: inout Session) -> Outcome {
    // Read through the entry: a copy of the spec would retain each of its fields.
    var outcome: Outcome
    if session.account != nil, !stillSignedIn(&session) {
      outcome = Outcome(reply: .error(RedisError.signedOut))
    } else if !entry.spec.acceptsArgumentCount(arguments.count) {
      outcome = Outcome(reply: .error(RedisError.arity(entry.spec.name)))
    } else if let refusal = Self.refusal(entry.spec, session) {
      outcome = Outcome(reply: .error(refusal))
    } else if session.subscriptions > 0, session.protocolVersion == .resp2,
      !entry.spec.flags.contains(.pubsubContext)
    {
      outcome = Outcome(
        reply: .error(
          "ERR Can't execute '\(entry.spec.name)': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
            + "PING / QUIT / RESET are allowed in this context"))
    } else {
      var invocation = Invocation(
        arguments: arguments, session: session, keyspace: .passUnretained(keyspace),
        environment: environment, processor: self)
      outcome = Outcome(reply: entry.spec.run(&invocation))
      outcome.commits = invocation.commits
      outcome.close = invocation.close
      outcome.deferred = invocation.deferred
      outcome.pending = invocation.pending
      outcome.holdsConnection = invocation.holdsConnection
      outcome.replyBytes = invocation.replyBytes
      session = invocation.session
    }
    outcome.commandID = entry.id
    return outcome
  }

  /// Whether the connection's account is still signed in; signs it out when not. Costs one
  /// atomic read while no sign-in anywhere has ended since this connection's last check.
  @inline(__always)
  private func stillSignedIn(_ session: inout Session) -> Bool {
    guard let accounts, let account = session.account else { return true }
    let revocations = accounts.revocations
    if revocations == session.checkedRevocations { return true }
    let signedIn = SignedInAccount(
      account: account, generation: session.accountGeneration, session: session.accountSession)
    guard accounts.isSignedIn(signedIn) else {
      session.signOut()
      environment.sessionChanged(session)
      return false
    }
    session.checkedRevocations = revocations
    return true
  }

  /// Who may run what: before any sign-in only `noAuth` commands; a signed-in account only
  /// those marked `account`; the admin (or anyone, with no admin password) everything but the
  /// commands that act as an account.
  @inline(__always)
  private static func refusal(_ spec: CommandSpec, _ session: Session) -> String? {
    let flags = spec.flags
    if session.account == nil {
      if session.authenticated {
        return flags.contains(.needsAccount) ? RedisError.needsAccount : nil
      }
      return flags.contains(.noAuth) ? nil : RedisError.noAuth
    }
    return flags.contains(.account) || flags.contains(.noAuth)
      ? nil : RedisError.accountNoPerm(spec.name)
  }
}
